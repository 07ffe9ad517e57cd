#include "migrator/capture_reader.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "migrator/pgoutput_test_messages.h"

namespace pglayout::migrator {
namespace {

StreamMessage Data(std::string bytes) {
  StreamMessage m;
  m.kind = StreamMessage::Kind::kData;
  m.data = std::move(bytes);
  return m;
}
StreamMessage Relation() { return Data(pgoutput_test::Relation(42, {"id"})); }
StreamMessage Insert(const std::string& id) {
  return Data(pgoutput_test::Insert(42, {id}));
}
StreamMessage Commit(Lsn end) { return Data(pgoutput_test::Commit(end)); }
StreamMessage Keepalive(Lsn sent, bool reply = false) {
  StreamMessage m;
  m.kind = StreamMessage::Kind::kKeepalive;
  m.position = sent;
  m.reply_requested = reply;
  return m;
}

// What the server would send, one message per Receive; an empty queue is a
// wait with nothing; "lost" ends the stream.
struct Script {
  std::deque<StreamMessage> messages;
  bool lose_after = false;                     // then the stream is cut
  std::vector<std::pair<Lsn, bool>> confirms;  // every status update
};

class FakeStream : public ReplicationStream {
 public:
  explicit FakeStream(Script* script) : script_(script) {}
  Status Receive(int, StreamMessage* m, bool* got) override {
    *got = false;
    if (script_->messages.empty()) {
      if (script_->lose_after) {
        script_->lose_after = false;
        return Status::Unavailable("the replication stream ended: timeout");
      }
      return Status::Ok();
    }
    *m = script_->messages.front();
    script_->messages.pop_front();
    *got = true;
    return Status::Ok();
  }
  Status Confirm(Lsn flushed, bool reply) override {
    script_->confirms.emplace_back(flushed, reply);
    return Status::Ok();
  }

 private:
  Script* script_;
};

// Each open takes the next script: a reconnect sees what the server sends
// from the slot's confirmed position.
struct Server {
  std::vector<Script> scripts;
  size_t opened = 0;
  CaptureReader Reader() {
    return CaptureReader(42, {"id"}, [this](auto* stream) {
      if (opened >= scripts.size()) return Status::Unavailable("no server");
      *stream = std::make_unique<FakeStream>(&scripts[opened++]);
      return Status::Ok();
    });
  }
};

TEST(CaptureReader, ReadsUntilACommitOrKeepaliveReachesThePosition) {
  Server server;
  server.scripts.resize(1);
  auto& in = server.scripts[0].messages;
  in = {Relation(),    Insert("1"), Commit(0x100), Insert("2"),
        Commit(0x200), Insert("3"), Commit(0x300)};
  CaptureReader reader = server.Reader();
  // Up to 0x180: the commit at 0x200 proves every earlier one read.
  ASSERT_TRUE(reader.ReadUpTo(0x180).ok());
  EXPECT_EQ(reader.pending(), (std::set<DecodedKey>{{"1"}, {"2"}}));
  EXPECT_EQ(in.size(), 2u) << "stopped at the commit past the position";
  // Nothing more is needed below what was read.
  ASSERT_TRUE(reader.ReadUpTo(0x180).ok());
  EXPECT_EQ(in.size(), 2u);
  ASSERT_TRUE(reader.Confirm().ok());
  EXPECT_TRUE(reader.pending().empty());
  EXPECT_EQ(server.scripts[0].confirms.back(),
            std::make_pair(Lsn{0x180}, false));
  // A keepalive at the server's sent position ends a read with no commit
  // past it; one that asks for a reply gets the confirmed position.
  in.push_back(Keepalive(0x340, true));
  ASSERT_TRUE(reader.ReadUpTo(0x340).ok());
  EXPECT_EQ(reader.pending(), (std::set<DecodedKey>{{"3"}}));
  EXPECT_EQ(server.scripts[0].confirms.back(),
            std::make_pair(Lsn{0x180}, false));
  // A keepalive behind the position does not end it: the reader asks again.
  in.push_back(Keepalive(0x350));
  in.push_back(Keepalive(0x400));
  ASSERT_TRUE(reader.ReadUpTo(0x400).ok());
  EXPECT_TRUE(in.empty());
}

TEST(CaptureReader, ACutStreamIsOpenedAgainOnceAndRepeatsOnlyKeys) {
  Server server;
  server.scripts.resize(3);
  server.scripts[0].messages = {Relation(), Insert("1")};
  server.scripts[0].lose_after = true;  // wal_sender_timeout, say
  // From the confirmed position again: the relation described anew.
  server.scripts[1].messages = {Relation(), Insert("1"), Insert("2"),
                                Commit(0x200)};
  CaptureReader reader = server.Reader();
  ASSERT_TRUE(reader.ReadUpTo(0x200).ok());
  EXPECT_EQ(server.opened, 2u);
  EXPECT_EQ(reader.pending(), (std::set<DecodedKey>{{"1"}, {"2"}}));
  // Cut twice in one read: the second loss is the caller's.
  server.scripts[1].lose_after = true;
  server.scripts[2].lose_after = true;
  Status st = reader.ReadUpTo(0x300);
  EXPECT_EQ(st.code(), Status::Code::kUnavailable) << st.ToString();
}

TEST(CaptureReader, AChangeBeforeItsDescriptionFails) {
  Server server;
  server.scripts.resize(1);
  server.scripts[0].messages = {Insert("1"), Commit(0x100)};
  CaptureReader reader = server.Reader();
  Status st = reader.ReadUpTo(0x100);
  EXPECT_EQ(st.code(), Status::Code::kInternal) << st.ToString();
}

}  // namespace
}  // namespace pglayout::migrator
