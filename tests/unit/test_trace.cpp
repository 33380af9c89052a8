// test_trace.cpp: the --trace timeline: overlapping commands of one queue on lanes of their own.
#include "lab/trace.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace {

lab::TracedCommand command(const std::string& track, const std::string& name, cl_ulong start,
                           cl_ulong end) {
  lab::TracedCommand c;
  c.track = track;
  c.name = name;
  c.type = "NDRangeKernel";
  c.queued = c.submit = 1000;
  c.start = start;
  c.end = end;
  return c;
}

struct Slice {
  std::string name;
  double start, end;
};

// The complete events of a trace, by thread, and the thread names.
std::map<int, std::vector<Slice>> slices_by_thread(const nlohmann::json& trace,
                                                   std::map<int, std::string>& names) {
  std::map<int, std::vector<Slice>> by_thread;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    } else if (e["ph"] == "X") {
      const double ts = e["ts"].get<double>();
      by_thread[e["tid"].get<int>()].push_back(
          {e["name"].get<std::string>(), ts, ts + e["dur"].get<double>()});
    }
  }
  return by_thread;
}

}  // namespace

TEST(Trace, OverlappingCommandsOfOneQueueGoOnSeparateLanes) {
  lab::Trace trace("unused.json");
  // k1 and k2 overlap partly, k3 nests inside k1, k4 starts after all have ended; another queue
  // has one command of its own.
  trace.add(command("out-of-order queue", "k1", 2000, 6000));
  trace.add(command("out-of-order queue", "k2", 4000, 9000));
  trace.add(command("out-of-order queue", "k3", 2500, 3000));
  trace.add(command("out-of-order queue", "k4", 9000, 9500));
  trace.add(command("in-order queue", "w", 1000, 1500));
  std::map<int, std::string> names;
  const auto by_thread = slices_by_thread(trace.json("lab", "device"), names);

  std::size_t slices = 0;
  for (const auto& [tid, list] : by_thread) {
    ASSERT_TRUE(names.count(tid)) << "thread " << tid << " has no name";
    slices += list.size();
    for (const Slice& a : list) {
      for (const Slice& b : list) {
        EXPECT_FALSE(b.start > a.start && b.start < a.end && b.end > a.end)
            << b.name << " starts inside " << a.name << " and ends after it on " << names[tid];
      }
    }
  }
  EXPECT_EQ(slices, 5u) << "every command is on the timeline";
  // Two lanes for the out-of-order queue (k3 goes on the second, k2 after it), one for the
  // in-order queue; lanes are named after their queue.
  EXPECT_EQ(names.size(), 3u);
  std::size_t out_of_order_lanes = 0;
  for (const auto& [tid, name] : names) {
    if (name.rfind("out-of-order queue", 0) == 0) ++out_of_order_lanes;
  }
  EXPECT_EQ(out_of_order_lanes, 2u);
}

TEST(Trace, CommandsOneAfterAnotherShareOneLane) {
  lab::Trace trace("unused.json");
  trace.add(command("in-order queue", "a", 1000, 2000));
  trace.add(command("in-order queue", "b", 2000, 3000));
  trace.add(command("in-order queue", "c", 3500, 4000));
  std::map<int, std::string> names;
  const auto by_thread = slices_by_thread(trace.json("lab", "device"), names);
  ASSERT_EQ(by_thread.size(), 1u);
  EXPECT_EQ(by_thread.begin()->second.size(), 3u);
  EXPECT_EQ(names.begin()->second, "in-order queue");
}
