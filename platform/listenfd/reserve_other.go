//go:build !linux

package listenfd

import (
	"errors"
	"os"
)

func reserve(addr string) (*os.File, error) {
	return nil, errors.New("reserve " + addr + ": not supported on this system")
}

func startListening(int) error { return nil }
