pragma circom 2.0.0;
// A chain of N field products: x[i] = x[i-1]·a + b. Public a, private b, output c.
template Products(N) {
    signal input a;
    signal input b;
    signal output c;
    signal x[N];
    x[0] <== a * b;
    for (var i = 1; i < N; i++) x[i] <== x[i-1] * a + b;
    c <== x[N-1];
}
component main {public [a]} = Products(200);
