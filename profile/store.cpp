#include "profile/store.h"

#include <filesystem>

#include "profile/postgres.h"
#include "profile/sqlite.h"
#include "profile/store_schema.h"

namespace quartz::profile {

Store::Store(const std::string& location, StoreAccess access) {
  const auto schema = [access](db::Connection& db) { open_schema(db, access); };
  db_ = is_server_uri(location) ? postgres::open(location, access, schema)
                                : sqlite::open(location, access, schema);
  path_ = db_->name();
}

Store::~Store() = default;

bool Store::looks_like_store(const std::string& path) {
  return sqlite::looks_like_database(path);
}

bool Store::is_server_uri(const std::string& location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string Store::display_name(const std::string& location) {
  return is_server_uri(location) ? postgres::public_name(location) : location;
}

bool Store::exists(const std::string& location) {
  std::error_code error;
  return is_server_uri(location) || std::filesystem::exists(location, error);
}

}  // namespace quartz::profile
