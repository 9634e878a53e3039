// Package phone turns the ways Kenyans write a mobile number into the form
// M-Pesa's APIs take: 2547XXXXXXXX or 2541XXXXXXXX, twelve digits, no plus.
//
// It accepts what public.create_nestcoin_purchase accepts (07…, 01…,
// +254…, 254…) plus the bare nine digits (7…, 1…) that
// public.normalize_phone_ke also reads, with spaces, dashes, dots and
// parentheses anywhere. Anything else is ErrInvalid: a number M-Pesa cannot
// prompt is refused before a purchase is created.
package phone

import "errors"

// ErrInvalid is returned for anything that is not a Kenyan mobile number.
var ErrInvalid = errors.New("enter a valid M-Pesa phone number")

// maxInput bounds what Normalize reads: a phone field, not a document.
const maxInput = 64

// Normalize returns s as 2547XXXXXXXX or 2541XXXXXXXX, or ErrInvalid.
func Normalize(s string) (string, error) {
	if len(s) > maxInput {
		return "", ErrInvalid
	}
	var d [maxInput]byte
	n, plus := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			d[n] = c
			n++
		case c == '+' && n == 0 && !plus:
			plus = true
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '\t':
		default:
			return "", ErrInvalid
		}
	}
	digits := d[:n]
	var local []byte // the nine digits after the country code
	switch {
	case n == 12 && string(digits[:3]) == "254":
		local = digits[3:]
	case plus:
		// "+" is only the international form of a Kenyan number.
		return "", ErrInvalid
	case n == 10 && digits[0] == '0':
		local = digits[1:]
	case n == 9:
		local = digits
	default:
		return "", ErrInvalid
	}
	if local[0] != '7' && local[0] != '1' {
		return "", ErrInvalid
	}
	return "254" + string(local), nil
}

// Mask hides the middle of a normalised number for logs: 2547****5678.
func Mask(msisdn string) string {
	if len(msisdn) != 12 {
		return "****"
	}
	return msisdn[:4] + "****" + msisdn[8:]
}
