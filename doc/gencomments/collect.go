package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkg is one package as go list describes it.
type pkg struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
}

// listPackages asks the go command for the packages the patterns match.
func listPackages(ctx context.Context, patterns []string) ([]pkg, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-e=false", "-json=ImportPath,Name,Dir,GoFiles,CgoFiles", "--"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

// collect adds the doc comments of p's declarations to comments.
func (p pkg) collect(comments map[string]string) error {
	prefix := p.ImportPath
	if p.Name == "main" {
		prefix = "main"
	}
	fset := token.NewFileSet()
	for _, name := range append(p.GoFiles, p.CgoFiles...) {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				key := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					key = receiverName(d.Recv.List[0].Type) + "." + key
				}
				add(comments, prefix+"."+key, d.Doc)
			case *ast.GenDecl:
				if d.Tok != token.TYPE {
					continue
				}
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					doc := ts.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					key := prefix + "." + ts.Name.Name
					add(comments, key, doc)
					if st, ok := ts.Type.(*ast.StructType); ok {
						addFields(comments, key, st)
					}
				}
			}
		}
	}
	return nil
}

// addFields adds the comments of a struct type's named fields under typeKey.Field.
func addFields(comments map[string]string, typeKey string, st *ast.StructType) {
	for _, fld := range st.Fields.List {
		doc := fld.Doc
		if doc == nil {
			doc = fld.Comment
		}
		for _, n := range fld.Names {
			add(comments, typeKey+"."+n.Name, doc)
		}
	}
}

// receiverName returns the name of a method's receiver type, without pointer or type
// parameters: T for T, *T, T[K] and *T[K, V].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// add sets comments[key] to the text of doc, when there is one.
func add(comments map[string]string, key string, doc *ast.CommentGroup) {
	if t := text(doc); t != "" {
		comments[key] = t
	}
}

// text returns a comment's text with each paragraph on one line, paragraphs separated by a
// blank line, code blocks kept as they are, and doc links as plain names.
func text(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	var p comment.Parser
	pr := comment.Printer{TextWidth: -1}
	return strings.TrimSpace(string(pr.Text(p.Parse(doc.Text()))))
}

// encode returns comments as indented JSON, keys sorted, with a final newline.
func encode(comments map[string]string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(comments); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
