// Package expf holds the constants of the float32 exponential that two
// packages compute, each in the order its own scalar reference fixes:
// ops/elementwise (Exp, Softmax, Sigmoid, Erf) and ops/rnn/kern (the
// LSTM/GRU gates). e^x = 2^n · e^r with n = round(x·log2 e) and r = x - n·ln 2
// in [-ln2/2, ln2/2]; ln 2 is split in two (Cody–Waite) so that n·Ln2Hi is
// exact, and e^r ≈ 1 + r + r²·P(r) with Cephes' expf polynomial P.
package expf

const (
	Log2e = 1.44269504088896341
	Ln2Hi = 0.693359375 // 355/512: 9 bits, so n·Ln2Hi is exact for |n| < 2^15
	Ln2Lo = -2.12194440e-4

	// P(r) = P0·r⁵ + … + P5, highest power first.
	P0 = 1.9875691500e-4
	P1 = 1.3981999507e-3
	P2 = 8.3334519073e-3
	P3 = 4.1665795894e-2
	P4 = 1.6666665459e-1
	P5 = 5.0000001201e-1
)
