pragma circom 2.0.0;
// Several public inputs and outputs around a few private products.
template PubIO() {
    signal input u[3];
    signal input v[2];
    signal output o[3];
    signal t;
    o[0] <== u[0] * v[0];
    t <== u[1] * u[2];
    o[1] <== t * v[1] + u[0];
    o[2] <== o[0] * o[1];
}
component main {public [u]} = PubIO();
