package internal
import (
 _ "github.com/alecthomas/participle/v2"
 _ "gonum.org/v1/gonum/mat"
 _ "github.com/stretchr/testify/require"
 _ "github.com/alecthomas/kong"
)

