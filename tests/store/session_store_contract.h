// The behaviour every SessionStore must have, as value-parameterized tests. A test binary
// instantiates them with its factory:
//   INSTANTIATE_TEST_SUITE_P(Sqlite, SessionStoreContract, ::testing::Values(factory));
#pragma once

#include <gtest/gtest.h>

#include "store_test_support.h"

namespace supportd::store::testing {

class SessionStoreContract : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override { reopen(); }
  void reopen() {
    store_.reset();
    store_ = GetParam().open(dir_.path());
    ASSERT_NE(store_, nullptr);
  }
  // `tenant` empty: tenant_. Tenants are unique per test: stores may share servers.
  SessionId create(std::string tenant = {}, const std::string& user = "bob") {
    if (tenant.empty()) tenant = tenant_;
    Result<SessionId> id = signer_.issue(tenant, user);
    EXPECT_TRUE(id.ok());
    Result<Conversation> created = store_->create(*id);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return std::move(*id);
  }

  TempDir dir_;
  SessionSigner signer_ = test_signer();
  const std::string tenant_ = unique_name("tenant");
  std::unique_ptr<SessionStore> store_;
};

std::string contract_name(const ::testing::TestParamInfo<StoreFactory>& info);

}  // namespace supportd::store::testing
