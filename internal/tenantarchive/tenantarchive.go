// Package tenantarchive reads and writes a company's archive: a zip of
// JSON Lines files, one per table of the company's data (a row an object
// of its columns, keys sorted), and manifest.json, which says the format's
// version, the company, when it was exported, and each file's table, row
// count, size and SHA-256. It knows no store: the rows are
// vitrine.TenantRow values.
package tenantarchive

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"
	"time"

	"github.com/vitrine/vitrine"
)

// Format and Version name what manifest.json describes.
const (
	Format  = "vitrine-tenant"
	Version = 1
)

// ManifestName is the manifest's name in the archive.
const ManifestName = "manifest.json"

// MaxLine bounds one row's line.
const MaxLine = 64 << 20

// Manifest describes an archive.
type Manifest struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	TenantID   string `json:"tenant_id"`
	Slug       string `json:"slug"`
	ExportedAt string `json:"exported_at"`
	Files      []File `json:"files"`
}

// File is one table's file.
type File struct {
	Name   string `json:"name"`
	Table  string `json:"table"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Rows counts the rows of the archive's files.
func (m *Manifest) Rows() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Rows
	}
	return n
}

// Writer writes an archive, streaming: a table's rows go to the zip as
// they come.
type Writer struct {
	zw   *zip.Writer
	m    Manifest
	at   time.Time
	cur  io.Writer
	file *File
	h    hash.Hash
	buf  bytes.Buffer
	enc  *json.Encoder
	// OnRow, if set, is called after each row written.
	OnRow func()
}

// NewWriter starts an archive of a company's export at at.
func NewWriter(w io.Writer, tenantID, slug string, at time.Time) *Writer {
	wr := &Writer{zw: zip.NewWriter(w), at: at.UTC(), m: Manifest{Format: Format, Version: Version, TenantID: tenantID, Slug: slug, ExportedAt: at.UTC().Format(time.RFC3339Nano)}}
	wr.enc = json.NewEncoder(&wr.buf)
	wr.enc.SetEscapeHTML(false)
	return wr
}

// Table starts the file of a table.
func (w *Writer) Table(name string, _ int64) error {
	w.end()
	fw, err := w.zw.CreateHeader(&zip.FileHeader{Name: name + ".jsonl", Method: zip.Deflate, Modified: w.at})
	if err != nil {
		return err
	}
	w.h = sha256.New()
	w.cur = io.MultiWriter(fw, w.h)
	w.m.Files = append(w.m.Files, File{Name: name + ".jsonl", Table: name})
	w.file = &w.m.Files[len(w.m.Files)-1]
	return nil
}

// Row writes one row of the current table.
func (w *Writer) Row(r vitrine.TenantRow) error {
	if w.file == nil {
		return errors.New("tenantarchive: a row before any table")
	}
	w.buf.Reset()
	if err := w.enc.Encode(r); err != nil {
		return err
	}
	n, err := w.cur.Write(w.buf.Bytes())
	if err != nil {
		return err
	}
	w.file.Rows++
	w.file.Bytes += int64(n)
	if w.OnRow != nil {
		w.OnRow()
	}
	return nil
}

func (w *Writer) end() {
	if w.file != nil {
		w.file.SHA256 = hex.EncodeToString(w.h.Sum(nil))
		w.file = nil
	}
}

// Close writes the manifest and ends the zip; it returns the manifest.
func (w *Writer) Close() (*Manifest, error) {
	w.end()
	fw, err := w.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: w.at})
	if err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(w.m, "", "  ")
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	if err := w.zw.Close(); err != nil {
		return nil, err
	}
	return &w.m, nil
}

// Reader reads an archive.
type Reader struct {
	zr    *zip.Reader
	m     Manifest
	files map[string]*zip.File
}

// refuse is the error of an archive that cannot be read as one.
func refuse(format string, args ...any) error {
	return vitrine.Invalid("archive", "Not a valid company archive: "+format, args...)
}

// Open reads an archive's manifest, and checks that the archive holds the
// files it lists and no other.
func Open(r io.ReaderAt, size int64) (*Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, refuse("not a zip file (%v)", err)
	}
	rd := &Reader{zr: zr, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		if _, dup := rd.files[f.Name]; dup {
			return nil, refuse("%s is in it twice", f.Name)
		}
		rd.files[f.Name] = f
	}
	mf := rd.files[ManifestName]
	if mf == nil {
		return nil, refuse("it has no %s", ManifestName)
	}
	rc, err := mf.Open()
	if err != nil {
		return nil, refuse("%s: %v", ManifestName, err)
	}
	defer rc.Close()
	dec := json.NewDecoder(io.LimitReader(rc, 16<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rd.m); err != nil {
		return nil, refuse("%s: %v", ManifestName, err)
	}
	m := &rd.m
	if m.Format != Format {
		return nil, refuse("its format is %q, not %q", m.Format, Format)
	}
	if m.Version != Version {
		return nil, refuse("its format's version is %d; this Vitrine reads version %d", m.Version, Version)
	}
	if !vitrine.ValidID(m.TenantID) {
		return nil, refuse("its company id %q is not an id", m.TenantID)
	}
	listed := map[string]bool{ManifestName: true}
	for _, f := range m.Files {
		if f.Name != f.Table+".jsonl" || f.Table == "" || strings.ContainsAny(f.Table, `/\"'. `) || path.Clean(f.Name) != f.Name {
			return nil, refuse("file %q of table %q", f.Name, f.Table)
		}
		if listed[f.Name] {
			return nil, refuse("%s is listed twice", f.Name)
		}
		listed[f.Name] = true
		if rd.files[f.Name] == nil {
			return nil, refuse("%s is listed but missing", f.Name)
		}
	}
	for name := range rd.files {
		if !listed[name] {
			return nil, refuse("%s is in it but not in its manifest", name)
		}
	}
	return rd, nil
}

// Manifest is the archive's manifest.
func (r *Reader) Manifest() *Manifest { return &r.m }

// Tables are the archive's tables.
func (r *Reader) Tables() []string {
	var ts []string
	for _, f := range r.m.Files {
		ts = append(ts, f.Table)
	}
	return ts
}

// Verify reads every file and checks its size, rows and SHA-256 against
// the manifest.
func (r *Reader) Verify(ctx context.Context) error {
	for _, f := range r.m.Files {
		if err := r.Rows(ctx, f.Table, nil); err != nil {
			return err
		}
	}
	return nil
}

// Rows reads a table's file line by line, calling each (if not nil) with
// every row; at its end, it checks the file against the manifest. A
// caller that writes rows as they come must write them in a transaction
// that this error rolls back.
func (r *Reader) Rows(ctx context.Context, table string, each func(vitrine.TenantRow) error) error {
	var f *File
	for i := range r.m.Files {
		if r.m.Files[i].Table == table {
			f = &r.m.Files[i]
		}
	}
	if f == nil {
		return nil
	}
	rc, err := r.files[f.Name].Open()
	if err != nil {
		return refuse("%s: %v", f.Name, err)
	}
	defer rc.Close()
	h := sha256.New()
	counted := &countWriter{}
	br := bufio.NewReaderSize(io.TeeReader(io.LimitReader(rc, f.Bytes+1), io.MultiWriter(h, counted)), 64<<10)
	var rows int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return refuse("%s line %d: %v", f.Name, rows+1, err)
		}
		rows++
		if each == nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var row vitrine.TenantRow
		if err := dec.Decode(&row); err != nil {
			return refuse("%s line %d: %v", f.Name, rows, err)
		}
		if err := each(row); err != nil {
			return err
		}
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		return refuse("%s: %v", f.Name, err)
	}
	switch {
	case counted.n != f.Bytes:
		return refuse("%s has %d bytes where its manifest says %d: damaged or altered", f.Name, counted.n, f.Bytes)
	case hex.EncodeToString(h.Sum(nil)) != f.SHA256:
		return refuse("%s does not match its SHA-256 in the manifest: damaged or altered", f.Name)
	case rows != f.Rows:
		return refuse("%s has %d rows where its manifest says %d", f.Name, rows, f.Rows)
	}
	return nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// readLine reads one line, without its newline, of at most MaxLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", MaxLine)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(line) > 0:
			return nil, errors.New("the last line has no newline")
		default:
			return nil, err
		}
	}
}
