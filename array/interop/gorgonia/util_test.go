package gorgonia_test

import (
	"fmt"
	"strings"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func typeName(x any) string {
	return strings.ReplaceAll(fmt.Sprintf("%T", x), "github.com/resident-go/resident/array.", "")
}
