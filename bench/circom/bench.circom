pragma circom 2.0.0;
// Benchmark circuit of N constraints: N/2 field products (a chain of squares,
// full-width scalars in A, B and C) and N/2 boolean constraints on bits of b
// (scalars 0 and 1), the mix of a typical circom circuit. Public input a.
template Bench(N) {
    signal input a;
    signal input b;
    signal output c;
    signal x[N / 2];
    signal bits[N / 2];
    x[0] <== a * b;
    for (var i = 1; i < N / 2; i++) x[i] <== x[i - 1] * x[i - 1] + b;
    for (var i = 0; i < N / 2; i++) {
        bits[i] <-- (b >> (i % 64)) & 1;
        bits[i] * (bits[i] - 1) === 0;
    }
    c <== x[N / 2 - 1];
}
