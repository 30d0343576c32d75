#include "profile/sqlite.h"

#include <cstring>

namespace quartz::profile::sqlite {

std::string describe(sqlite3* db) {
  std::string message = sqlite3_errmsg(db);
  const int primary = sqlite3_extended_errcode(db) & 0xff;
  const int system_errno = sqlite3_system_errno(db);
  if ((primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR) && system_errno != 0) {
    message += std::string(" (") + std::strerror(system_errno) + ")";
  }
  return message;
}

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& what) {
  if ((sqlite3_extended_errcode(db) & 0xff) == SQLITE_NOTADB) {
    throw StoreError(path + ": not a Quartz store");
  }
  throw StoreError(path + ": " + what + ": " + describe(db));
}

void exec(sqlite3* db, const std::string& path, const char* sql, const std::string& what) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, path, what);
}

bool has_table(sqlite3* db, const std::string& path, const std::string& name) {
  Statement table(db, path, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                  "cannot read the store's tables");
  table.bind(1, name);
  return table.step();
}

std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {  // RFC 3986: what would end or escape the path
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(c);
      uri += {'%', kHex[byte >> 4], kHex[byte & 15]};
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace quartz::profile::sqlite
