// The desk's generation path, exercised with a synthesized model whose text is meaningless but
// whose mechanics are real: prompt with retrieved articles, streaming, caching, content rules on
// the output. (A desk serving a synthesized model normally never shows generated text.)
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;

TEST(DeskGeneration, GeneratesGroundedAnswersAndCachesThem) {
  DeskServer server(/*generate=*/true);
  const std::string session = server.new_session();
  // Nothing in the knowledge base answers this confidently: the model is asked.
  const std::string question = "Compose a short poem about autumn leaves and cardboard boxes";
  const auto first =
      server.post("/v1/sessions/" + session + "/messages", json::object{{"text", question}});
  ASSERT_EQ(first.status, 200) << first.body;
  const json::value answer = json::parse(first.body).at("answer");
  EXPECT_EQ(answer.at("source"), json::value("model"));
  EXPECT_FALSE(answer.at("citations").as_array().empty());  // the articles the model was given
  EXPECT_TRUE(answer.at("timings").as_object().contains("generate"));
  EXPECT_GT(answer.at("seq_id").as_int64(), 0);

  // The same question again comes from the answer cache.
  const std::string other = server.new_session();
  const auto second =
      server.post("/v1/sessions/" + other + "/messages", json::object{{"text", question}});
  ASSERT_EQ(second.status, 200);
  const json::value cached = json::parse(second.body).at("answer");
  EXPECT_EQ(cached.at("source"), json::value("cache"));
  EXPECT_EQ(cached.at("text"), answer.at("text"));
}

}  // namespace
}  // namespace supportd
