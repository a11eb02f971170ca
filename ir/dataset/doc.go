// Package dataset reads the data files that bind a model's data block,
// CSV (ReadCSVFile, Read) or JSON (ReadJSONFile, ParseJSON), and selects
// columns from CSV tables.
//
// A CSV data file is comma-separated UTF-8 text (a byte order mark, CRLF
// line ends and lines ended by a lone CR are accepted) whose first
// non-blank line names the columns and whose other non-blank lines hold
// finite decimal numbers. Problems are reported as a lang.ErrorList
// positioned at file:line:col, where line is the physical line of the file
// (a quoted field may span lines) and col the byte column of the offending
// field: the problems of the rows and cells (ragged rows, empty, missing
// (NA, NaN, ...) or non-finite cells, words where numbers should be) up to
// 10 of them, all those of the header (empty or duplicate column names),
// and the first problem of the file as a whole (bad quoting, bytes that
// are not UTF-8, UTF-16 text, a header separated by semicolons or tabs, an
// empty file, no data rows), which ends the reading. mscppl has no model for missing
// data, so a row with a missing value must be removed or filled in by the
// user.
//
// Table.Select resolves the column selections of a data declaration
// (named columns, a glob over the header names, or all columns but some),
// with "did you mean" hints; Table.Matrix lays the selected columns out
// row-major, and Standardize centres and scales them (mean 0, standard
// deviation 1). Table.Subset takes rows (for cross-validation).
//
// A JSON data file is one object in the format of CmdStan and
// posteriordb: its fields are numbers, arrays of numbers or arrays of
// rows (a matrix), and the strings "NaN", "Inf" (or "+Inf", "Infinity")
// and "-Inf" (or "-Infinity") stand for those values; deeper nesting,
// ragged rows, other strings, booleans, nulls and objects are errors. Its
// problems are reported as for CSV, up to 10 of them.
//
// ReadCSVFile and ReadJSONFile read a file in one streaming pass through a
// 64 KB window (a JSON window grows for a longer token), so that a valid
// file's text is never held whole and reading takes about the memory of
// its values. A JSON file is read by a scanner that parses each number
// where it stands (to strconv.ParseFloat's value) into its field's Values,
// a matrix's rows flattened as they come, with no tree of tokens and no
// per-value positions (ElemPos finds one again for a message, in a
// streamed file's case by reading the file again); a CSV file goes through encoding/csv's reader straight into
// its columns. A file the streaming pass does not accept as it stands (any
// problem, and for CSV a few rare forms) is read whole and given to
// ParseJSON or Read, which report its problems with their positions (or
// read CSV's rare forms). ParseJSON and Read parse text already in memory:
// ParseJSON with the same scanner, then, if the scan stops at a problem,
// token by token from the field where it stopped, for the messages; Read
// takes a *bytes.Buffer's contents without a copy. BenchmarkReadJSON
// (ParseJSON), BenchmarkReadJSONFile and BenchmarkReadCSV (Read) measure
// the speed in MB/s.
package dataset
