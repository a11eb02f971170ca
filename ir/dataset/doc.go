// Package dataset reads the data files that bind a model's data block,
// CSV (ReadCSVFile, Read) or JSON (ReadJSONFile, ParseJSON), and selects
// columns from CSV tables.
//
// A CSV data file is comma-separated UTF-8 text (a byte order mark and
// CRLF line ends are accepted) whose first non-blank line names the
// columns and whose other lines hold finite decimal numbers. Every
// problem — ragged rows, empty, missing (NA, NaN, ...) or non-finite
// cells, words where numbers should be, duplicate or empty column names,
// bad quoting, bytes that are not UTF-8 — is reported, up to 10 of them,
// as a lang.ErrorList positioned at file:line:col, where line is the
// physical line of the file (a quoted field may span lines) and col the
// byte column of the offending field. mscppl has no model for missing
// data, so a row with a missing value must be removed or filled in by the
// user.
//
// Table.Select resolves the column selections of a data declaration (one
// column, a glob over the header names, or all columns but some), with
// "did you mean" hints; Table.Matrix lays the selected columns out
// row-major, and Standardize centres and scales them. Table.Subset takes
// rows (for cross-validation).
//
// A JSON data file is one object in the format of CmdStan and
// posteriordb: its fields are numbers, arrays of numbers or arrays of
// rows (a matrix), and the strings "NaN", "Inf" and "-Inf" stand for
// those values. Its problems are reported as for CSV.
//
// Reading is one pass over the file's bytes: a JSON file by a scanner that
// parses each number where it stands (exactly as strconv.ParseFloat) into
// its field's Values, a matrix's rows flattened as they come, with no tree
// of tokens and no per-value positions (ElemPos finds one again for a
// message); a file it rejects is parsed again token by token, for the
// messages. ReadJSONFile streams the file through a 64 KB window, so the
// text is never held whole (ParseJSON scans text already in memory).
// ReadCSVFile streams a CSV file the same way, through a 64 KB window into
// its columns, so that reading takes about the memory of the values; a
// file the streaming pass does not accept as it stands (any problem, and a
// few rare forms) is read whole and given to Read, which reports its
// problems or reads it. Read parses text already in memory and takes a
// *bytes.Buffer's contents without a copy.
// BenchmarkReadJSON, BenchmarkReadJSONFile and BenchmarkReadCSV measure
// the speed in MB/s.
package dataset
