package bank

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
)

// Input is one question file to decode: its name, its bytes and its real
// size. A reader may stop after MaxFileSize+1 bytes; Size then tells how big
// the file really was, for the message.
type Input struct {
	Name string
	Data []byte
	Size int64
}

// Decoded is a successfully decoded file with the SHA-256 of its bytes.
type Decoded struct {
	File   *File
	SHA256 string
}

// DecodeAll decodes several files. It returns every decoded file, or, when
// any file has a problem, an *Error listing the problems of all files.
func DecodeAll(inputs []Input) ([]Decoded, error) {
	var (
		out []Decoded
		all Error
	)
	deckFile := map[string]string{} // deck slug -> the first file of it
	for _, in := range inputs {
		if size := max(in.Size, int64(len(in.Data))); size > MaxFileSize {
			all.tooLarge = true
			all.Problems = append(all.Problems, Problem{File: in.Name,
				Msg: fmt.Sprintf("file is %d bytes, over the limit of %d bytes (%d KiB)", size, MaxFileSize, MaxFileSize>>10)})
			continue
		}
		f, err := Decode(in.Name, in.Data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				return nil, err
			}
			all.tooLarge = all.tooLarge || e.tooLarge
			all.Problems = append(all.Problems, e.Problems...)
			continue
		}
		// One file per deck: two would each claim to be the whole deck.
		if first, dup := deckFile[f.Deck.Slug]; dup {
			all.Problems = append(all.Problems, Problem{File: in.Name, Field: "deck.slug",
				Msg: fmt.Sprintf("deck %q is also in %s, uploaded with it: give each deck one file", f.Deck.Slug, first)})
			continue
		}
		deckFile[f.Deck.Slug] = in.Name
		sum := sha256.Sum256(in.Data)
		out = append(out, Decoded{File: f, SHA256: hex.EncodeToString(sum[:])})
	}
	if len(all.Problems) > 0 {
		return nil, &all
	}
	return out, nil
}
