package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
)

var csvColumns = []string{
	"language", "implementation", "implementation_version", "suite", "operation", "algorithm",
	"key_bits", "input", "input_bytes", "sample", "iterations", "elapsed_ns", "output_bytes", "status",
}

// cellLabel is what every row of one cell shares.
type cellLabel struct {
	implementation, version, suite, operation, algorithm, input string
	keyBits, inputBytes                                         int
}

// sampleRow is one row's measured part.
type sampleRow struct {
	sample                int
	iterations, elapsedNS int64
	outputBytes           int
	status                string
}

// rowWriter writes the raw-sample CSV, flushing every row as it is measured.
type rowWriter struct {
	file *os.File
	csv  *csv.Writer
}

func createRows(path string) (*rowWriter, error) {
	return createCSV(path, csvColumns)
}

// createCSV creates the --out file with its header row (the raw-sample CSV's, or the
// crosscheck's).
func createCSV(path string, header []string) (*rowWriter, error) {
	file, err := os.Create(path)
	if err != nil {
		return nil, usagef("--out: cannot create %s: %v", path, errorWithoutPath(err))
	}
	w := &rowWriter{file, csv.NewWriter(file)}
	return w, w.writeRecord(header)
}

func (w *rowWriter) writeRecord(record []string) error {
	if err := w.csv.Write(record); err != nil {
		return err
	}
	w.csv.Flush()
	return w.csv.Error()
}

func (w *rowWriter) write(label cellLabel, row sampleRow) error {
	itoa := strconv.Itoa
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	return w.writeRecord([]string{
		"go", label.implementation, label.version, label.suite, label.operation, label.algorithm,
		itoa(label.keyBits), label.input, itoa(label.inputBytes), itoa(row.sample), i64(row.iterations),
		i64(row.elapsedNS), itoa(row.outputBytes), row.status,
	})
}

// untimed writes a cell's single row when it was not timed (unsupported, failed).
func (w *rowWriter) untimed(label cellLabel, status string) error {
	return w.write(label, sampleRow{status: status})
}

func (w *rowWriter) close() error {
	w.csv.Flush()
	if err := w.file.Close(); err != nil {
		return fmt.Errorf("closing the output: %w", err)
	}
	return nil
}
