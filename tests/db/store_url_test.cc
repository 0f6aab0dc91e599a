#include "db/store_url.h"

#include <gtest/gtest.h>

#include "db/record_store.h"

namespace tensorperf::db {
namespace {

TEST(StoreUrlTest, PasswordsNeverReachMessages) {
  EXPECT_EQ(redact_url("postgresql://bob:s3cret@db.example:5432/tuning"), "postgresql://bob:***@db.example:5432/tuning");
  EXPECT_EQ(redact_url("postgres://bob@host/db?sslmode=require&password=s3cret"),
            "postgres://bob@host/db?sslmode=require&password=***");
  EXPECT_EQ(redact_url("postgresql://host/db"), "postgresql://host/db");
  EXPECT_EQ(redact_url("tensorperf.db"), "tensorperf.db");
  EXPECT_TRUE(is_postgres_url("postgresql://x"));
  EXPECT_FALSE(is_postgres_url("x.db"));
}

TEST(StoreUrlTest, ConnectionErrorsDoNotPrintThePassword) {
  auto store = open_store("postgresql://bob:s3cret@127.0.0.1:1/tuning?connect_timeout=2", OpenMode::kExisting);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().message().find("s3cret"), std::string::npos) << store.status().message();
  EXPECT_NE(store.status().message().find("bob:***@127.0.0.1:1"), std::string::npos) << store.status().message();
}

}  // namespace
}  // namespace tensorperf::db
