#include "common/relation_traits.h"

#include <gtest/gtest.h>

namespace pglayout {
namespace {

TEST(RelationTraits, NamesAndCodesRoundTrip) {
  for (auto [code, p] : {std::pair{'p', Persistence::kPermanent},
                         std::pair{'u', Persistence::kUnlogged},
                         std::pair{'t', Persistence::kTemporary}}) {
    EXPECT_EQ(PersistenceFromCode(code), p);
    Persistence back = Persistence::kTemporary;
    ASSERT_TRUE(ParsePersistence(PersistenceName(p), &back)) << code;
    EXPECT_EQ(back, p);
  }
  for (auto [code, r] : {std::pair{'d', ReplicaIdentity::kDefault},
                         std::pair{'f', ReplicaIdentity::kFull},
                         std::pair{'i', ReplicaIdentity::kIndex},
                         std::pair{'n', ReplicaIdentity::kNothing}}) {
    EXPECT_EQ(ReplicaIdentityFromCode(code), r);
    ReplicaIdentity back = ReplicaIdentity::kNothing;
    ASSERT_TRUE(ParseReplicaIdentity(ReplicaIdentityName(r), &back)) << code;
    EXPECT_EQ(back, r);
  }
  EXPECT_STREQ(PersistenceName(Persistence::kUnlogged), "unlogged");
  EXPECT_STREQ(ReplicaIdentityName(ReplicaIdentity::kFull), "full");
}

TEST(RelationTraits, UnknownNamesAndCodes) {
  Persistence p = Persistence::kUnlogged;
  EXPECT_FALSE(ParsePersistence("Permanent", &p));
  EXPECT_FALSE(ParsePersistence("", &p));
  EXPECT_EQ(p, Persistence::kUnlogged) << "left as it was";
  ReplicaIdentity r = ReplicaIdentity::kFull;
  EXPECT_FALSE(ParseReplicaIdentity("d", &r));
  EXPECT_EQ(r, ReplicaIdentity::kFull);
  EXPECT_EQ(PersistenceFromCode(0), Persistence::kPermanent);
  EXPECT_EQ(ReplicaIdentityFromCode('x'), ReplicaIdentity::kDefault);
}

}  // namespace
}  // namespace pglayout
