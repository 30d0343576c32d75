// Exceptions through instrumented frames. C++ frames run their exit hooks while
// unwinding; the C frames of exceptions_c.c (no -fexceptions) do not, so the runtime must
// resynchronise when the catching function returns.
#include <cstdio>
#include <stdexcept>

extern "C" int c_layer(int depth, void (*callback)(void));

static int thrown = 0;

extern "C" void throw_now() {
  ++thrown;
  throw std::runtime_error("through C");
}

int cxx_layer(int depth) {
  if (depth == 0) throw std::runtime_error("deep");
  return cxx_layer(depth - 1) + 1;
}

int catch_cxx() {
  try {
    return cxx_layer(20);
  } catch (const std::exception&) {
    return -1;
  }
}

int catch_through_c() {
  try {
    return c_layer(10, throw_now);
  } catch (const std::exception&) {
    return -1;
  }
}

int main() {
  int caught = 0;
  for (int i = 0; i < 100; ++i) caught += catch_cxx() == -1;
  for (int i = 0; i < 100; ++i) caught += catch_through_c() == -1;
  std::printf("caught=%d\n", caught);
  return caught == 200 ? 0 : 1;
}
