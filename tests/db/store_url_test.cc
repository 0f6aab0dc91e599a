#include "db/store_url.h"

#include <cctype>
#include <random>
#include <string>
#include <vector>

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

// Passwords of every shape a user may type (stray '%', '@', '/', '?', '#', '&', quotes, spaces),
// in the userinfo and in ?password=, through redaction, message scrubbing and a real failed
// connection: none may be printed, raw or percent-decoded.
TEST(StoreUrlTest, NoPasswordShapeReachesAMessage) {
  std::vector<std::string> passwords = {"hunter2",        "pa%ss-Word1", "hunter2@Secret", "p@ss/word", "p:ss:word",
                                        "pa?ss#word",     "p%40ssword",  "%41%42%43",      "sp ace d",  "quo\"te'd",
                                        "a&password=b",   "\xc3\xbcnicode", "100%",        "%zz%"};
  std::mt19937_64 rng(3);
  const std::string alphabet = "@:/?#%&=+ ;'\"abcXYZ0189";
  for (int i = 0; i < 200; ++i) {
    std::string p;
    for (size_t n = 1 + rng() % 12; n-- > 0;) p += alphabet[rng() % alphabet.size()];
    passwords.push_back(p);
  }
  auto decode = [](const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
        out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        out.push_back(s[i]);
      }
    }
    return out;
  };
  int connected = 0;
  for (size_t i = 0; i < passwords.size(); ++i) {
    // A marker makes every password distinct from the rest of the URL, so a substring test is exact.
    const std::string secret = "Zq" + std::to_string(i) + "K" + passwords[i];
    const std::vector<std::string> urls = {
        "postgresql://alice:" + secret + "@db.example:5432/tuning",
        "postgres://bob:" + secret + "@host/db?sslmode=require",
        "postgresql://carol@host/db?password=" + secret,
        "postgresql://dave@host/db?sslmode=disable&password=" + secret + "&application_name=x",
        "postgresql://erin:" + secret + "@[::1]:1/db",
        "postgresql://frank:" + secret + "@127.0.0.1:1/db?connect_timeout=1",
    };
    for (const std::string& url : urls) {
      for (const std::string& leak : {secret, decode(secret)}) {
        if (leak.size() < 4) continue;
        EXPECT_EQ(redact_url(url).find(leak), std::string::npos) << url << " -> " << redact_url(url);
        const std::string message = "could not parse \"" + leak + "\" in " + url;
        EXPECT_EQ(scrub_secrets(message, url).find(leak), std::string::npos) << message;
      }
    }
    // A real connection that fails, through libpq's own messages (every 10th shape: each costs a
    // connection attempt).
    if (i % 10 == 0) {
      ++connected;
      auto store = open_store(urls.back(), OpenMode::kExisting);
      ASSERT_FALSE(store.ok());
      for (const std::string& leak : {secret, decode(secret)})
        EXPECT_EQ(store.status().message().find(leak), std::string::npos) << store.status().message();
    }
  }
  EXPECT_GT(connected, 20);
}

}  // namespace
}  // namespace tensorperf::db
