// Storage for a runtime object that lives at namespace scope and must outlive the program's
// exit: the sampler thread still reads it while exit() runs the destructors (STYLE: never
// destroyed). A static destructor would free it under the sampler; this type has none.
#pragma once

namespace quartz::support {

template <class T>
union NeverDestroyed {
  constexpr NeverDestroyed() : value() {}
  ~NeverDestroyed() {}
  T value;
};

}  // namespace quartz::support
