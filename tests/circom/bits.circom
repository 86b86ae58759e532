pragma circom 2.0.0;
// Boolean decompositions: x and y (private, < 2^64) into bits, each bit
// constrained b·(b - 1) = 0 and the weighted sums equal to x and y; the
// output is the inner product of the two bit vectors plus k (public input).
template Bits(N) {
    signal input x;
    signal input y;
    signal input k;
    signal output dot;
    signal bx[N];
    signal by[N];
    signal acc[N + 1];
    var sx = 0;
    var sy = 0;
    acc[0] <== k;
    for (var i = 0; i < N; i++) {
        bx[i] <-- (x >> i) & 1;
        by[i] <-- (y >> i) & 1;
        bx[i] * (bx[i] - 1) === 0;
        by[i] * (by[i] - 1) === 0;
        sx += bx[i] * (1 << i);
        sy += by[i] * (1 << i);
        acc[i + 1] <== acc[i] + bx[i] * by[i];
    }
    sx === x;
    sy === y;
    dot <== acc[N];
}
component main {public [k]} = Bits(64);
