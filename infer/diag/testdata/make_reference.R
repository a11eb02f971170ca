# Regenerates the reference values in this directory:
#   Rscript make_reference.R
# Versions used: R 4.2.2, posterior 1.4.0, loo 2.5.1 (Debian bookworm
# packages r-cran-posterior and r-cran-loo).
suppressMessages({library(posterior); library(loo)})
w <- function(x, file) write.table(format(x, digits = 17), file, sep = ",",
                                  quote = FALSE, row.names = FALSE, col.names = FALSE)
out <- character()
ref <- function(name, fun, value)
  out <<- c(out, sprintf("%s,%s,%s", name, fun, format(value, digits = 17)))
chain_sets <- list()

# a: 4 chains x 20 draws, i.i.d. normal with one shifted chain.
set.seed(1)
a <- matrix(rnorm(80), 20, 4); a[, 2] <- a[, 2] + 0.7
chain_sets$a <- a
# b: 3 chains x 25 draws (odd: the middle draw is dropped), Student-t(3)
# rounded to one decimal so that there are many ties.
set.seed(2)
b <- matrix(round(rt(75, df = 3), 1), 25, 3)
chain_sets$b <- b
# c: 2 chains x 301 draws of AR(1), phi = 0.8, the second scaled by 2.
set.seed(3)
c2 <- sapply(1:2, function(i) as.numeric(arima.sim(list(ar = 0.8), 301)))
c2[, 2] <- 2 * c2[, 2]
chain_sets$c <- c2
# d: one chain of 51 draws from a deterministic formula.
chain_sets$d <- matrix(sin(1:51) + (1:51) / 40, 51, 1)

for (nm in names(chain_sets)) {
  x <- chain_sets[[nm]]
  w(x, sprintf("chains_%s.csv", nm))  # rows are draws, columns chains
  ref(nm, "Rhat", rhat(x)); ref(nm, "SplitRhat", rhat_basic(x))
  ref(nm, "ESSBulk", ess_bulk(x)); ref(nm, "ESSTail", ess_tail(x))
  ref(nm, "ESS", ess_basic(x))
}

# PSIS: log ratios N(0, s2) / N(0, 1) at draws from N(0, 1).
lr_sets <- list()
set.seed(4); x <- rnorm(1000)
lr_sets$p1000 <- dnorm(x, 0, sqrt(2), log = TRUE) - dnorm(x, log = TRUE)
set.seed(5); x <- rnorm(100)
lr_sets$p100 <- dnorm(x, 0, sqrt(1.5), log = TRUE) - dnorm(x, log = TRUE)
set.seed(6); x <- rnorm(4000)
lr_sets$p4000 <- dnorm(x, 0, sqrt(0.8), log = TRUE) - dnorm(x, log = TRUE)
for (nm in names(lr_sets)) {
  lr <- lr_sets[[nm]]
  p <- psis(lr, r_eff = 1)
  w(lr, sprintf("logratios_%s.csv", nm))
  w(as.numeric(weights(p, log = TRUE, normalize = TRUE)), sprintf("logweights_%s.csv", nm))
  ref(nm, "Khat", pareto_k_values(p)); ref(nm, "ESS", psis_n_eff_values(p))

}

# GPD fit without the prior adjustment on sorted GPD(k = 0.4, sigma = 1.5) draws.
set.seed(7); u <- runif(50)
g <- sort(1.5 * expm1(-0.4 * log1p(-u)) / 0.4)
w(g, "gpd.csv")
f <- gpdfit(g, wip = FALSE)
ref("gpd", "k", f$k); ref("gpd", "sigma", f$sigma)

writeLines(out, "reference.csv")
