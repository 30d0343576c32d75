/* Instrumented C frames without unwind cleanups: an exception passing through skips
 * their exit hooks. */
int c_layer(int depth, void (*callback)(void)) {
  if (depth == 0) {
    callback();
    return 0;
  }
  return c_layer(depth - 1, callback) + 1;
}
