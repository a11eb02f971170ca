// Package dataset reads the CSV files that bind a model's data block and
// selects columns from them. Every problem (ragged rows, missing or
// non-numeric cells, duplicate names, encoding errors) is reported with the
// file, the line and the column.
package dataset
