// A real browser renders the report: headless Chromium (Debian's chromium
// package) loads the page from a file, must log no console message (a
// blocked external load, a CSP violation or a script error would), and
// its screenshot must show a drawn page. Also printed to PDF, since the
// report is meant to be attached to change requests.
//
// Never skipped: without Chromium the tests fail and say how to install it.

#include <gtest/gtest.h>
#include <png.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/files.h"
#include "report/inputs.h"
#include "report/report.h"
#include "testing/subprocess.h"

namespace pglayout::report {
namespace {

constexpr int kBrowserTimeoutMs = 90'000;

std::string ChromiumPath() {
  const char* env = std::getenv("PGLAYOUT_CHROMIUM");
  return env && *env ? env : "/usr/bin/chromium";
}

// A fresh directory under the test's temporary directory.
std::string MakeTempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/pglayout_report_" + name + "_" +
                    std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

struct BrowserRun {
  bool finished = false;
  int exit_code = -1;
  std::string log;  // stderr and stdout together
};

// Runs Chromium headless on |url| with |extra| arguments, with a fresh
// profile and every background service that could reach the network off.
BrowserRun RunChromium(const std::string& dir,
                       const std::vector<std::string>& extra,
                       const std::string& url) {
  BrowserRun run;
  Command command;
  command.argv = {ChromiumPath(),
                  "--headless",
                  "--no-sandbox",
                  "--disable-gpu",
                  "--disable-quic",
                  "--no-first-run",
                  "--disable-background-networking",
                  "--disable-component-update",
                  "--disable-sync",
                  "--user-data-dir=" + dir + "/profile",
                  "--enable-logging=stderr",
                  "--v=0",
                  "--hide-scrollbars"};
  command.argv.insert(command.argv.end(), extra.begin(), extra.end());
  command.argv.push_back(url);
  std::string log_path = dir + "/chromium.log";
  pid_t pid = 0;
  if (!SpawnCommand(command, log_path, &pid).ok()) return run;
  int wait_status = 0;
  run.finished = WaitForChildFor(pid, kBrowserTimeoutMs, &wait_status);
  if (!run.finished) {
    kill(pid, SIGKILL);
    (void)WaitForChild(pid, &wait_status);
  } else if (WIFEXITED(wait_status)) {
    run.exit_code = WEXITSTATUS(wait_status);
  }
  (void)ReadTextFile(log_path, &run.log);
  std::filesystem::remove_all(dir + "/profile");
  return run;
}

// Chromium logs every console message (errors, CSP violations, failed
// loads) as "...:INFO:CONSOLE..." with --enable-logging=stderr.
std::vector<std::string> ConsoleLines(const std::string& log) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

struct PngStats {
  int width = 0;
  int height = 0;
  size_t distinct_colors = 0;
  double non_white_share = 0;
  size_t chart_blue_pixels = 0;  // close to Okabe-Ito blue #0072B2
};

bool DecodePng(const std::string& path, PngStats* stats) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return false;
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> pixels(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr)) {
    return false;
  }
  stats->width = static_cast<int>(image.width);
  stats->height = static_cast<int>(image.height);
  std::set<uint32_t> colors;
  size_t non_white = 0;
  for (size_t i = 0; i + 2 < pixels.size(); i += 3) {
    int r = pixels[i], g = pixels[i + 1], b = pixels[i + 2];
    colors.insert(static_cast<uint32_t>(r << 16 | g << 8 | b));
    if (r < 245 || g < 245 || b < 245) ++non_white;
    if (std::abs(r - 0x00) < 12 && std::abs(g - 0x72) < 12 &&
        std::abs(b - 0xB2) < 12) {
      ++stats->chart_blue_pixels;
    }
  }
  stats->distinct_colors = colors.size();
  stats->non_white_share =
      static_cast<double>(non_white) / static_cast<double>(pixels.size() / 3);
  return true;
}

class ReportBrowser : public ::testing::Test {
 protected:
  // Each test's directory stays behind only when it failed, for a look at
  // the page, the screenshot and Chromium's log.
  void TearDown() override {
    if (HasFailure()) return;
    for (const char* name : {"desktop", "phone", "print", "control"}) {
      std::filesystem::remove_all(::testing::TempDir() + "/pglayout_report_" +
                                  name + "_" + std::to_string(getpid()));
    }
  }

  void SetUp() override {
    ASSERT_EQ(access(ChromiumPath().c_str(), X_OK), 0)
        << ChromiumPath()
        << " is missing: run scripts/setup --with-browser (installs Debian's "
           "chromium package)";
  }

  // The fixture scenario's report, written to |dir|/report.html.
  static std::string WriteScenarioReport(const std::string& dir) {
    VolumeSet volumes;
    Workload workload;
    Plan plan;
    EXPECT_TRUE(ReadVolumesFile("report/testdata/volumes.toml", &volumes).ok());
    EXPECT_TRUE(
        ReadWorkloadFile("report/testdata/workload.toml", &workload).ok());
    EXPECT_TRUE(ReadPlanFile("report/testdata/plan.toml", &plan).ok());
    // A warning, a WAL move, both remedies and a Citus distribution (the
    // scale-out example's plan.json) too, so the browser draws each.
    plan.warnings = {"the data directory lives on no declared volume"};
    plan.wal_move =
        WalMove{"hot1", "/srv/pg/pg_wal", "/mnt/wal/pg_wal", "/srv/pg", 0.8};
    static PlanDetails details;
    Plan scale_out;
    EXPECT_TRUE(
        ReadPlanAnyFormat("examples/scale_out/plan.json", &scale_out, &details)
            .ok());
    EXPECT_TRUE(details.remedies && details.citus);
    // A journal too, so that every section is rendered by the browser.
    MigrationJournal journal;
    journal.run = "#1";
    journal.status = "done";
    journal.checkpoints_timed = 6;
    journal.checkpoints_requested = 1;
    journal.steps = {{1, "tablespace", "hot1", "", "done", 0.3, 0, 0, "", ""},
                     {2, "partition", "public.table_a", "phase swapped", "done",
                      2710, 750000000, 193273528320ULL, "", "full"},
                     {3, "move", "public.events", "", "aborted", 40, 0, 0,
                      "lock timeout", ""}};
    journal.settings = {{"max_wal_size", true, "1GB", "64GB", "restored"}};
    ReportInput in;
    in.journal = &journal;
    in.journal_source = "127.0.0.1:5432/app";
    in.volumes = &volumes;
    in.workload = &workload;
    in.plan = &plan;
    in.plan_details = &details;
    in.volumes_source = "volumes.toml";
    in.workload_source = "workload.toml";
    in.plan_source = "plan.toml";
    std::string path = dir + "/report.html";
    EXPECT_TRUE(WriteTextFile(path, RenderPage(in)).ok());
    return path;
  }
};

TEST_F(ReportBrowser, RendersWithoutConsoleMessagesAndDrawsThePage) {
  std::string dir = MakeTempDir("desktop");
  std::string html = WriteScenarioReport(dir);
  std::string png = dir + "/desktop.png";
  BrowserRun run =
      RunChromium(dir, {"--window-size=1280,2400", "--screenshot=" + png},
                  "file://" + html);
  ASSERT_TRUE(run.finished) << "chromium did not finish\n" << run.log;
  EXPECT_EQ(run.exit_code, 0) << run.log;
  EXPECT_EQ(ConsoleLines(run.log), std::vector<std::string>{});
  PngStats stats;
  ASSERT_TRUE(DecodePng(png, &stats)) << png << "\n" << run.log;
  EXPECT_EQ(stats.width, 1280);
  EXPECT_EQ(stats.height, 2400);
  // Text antialiasing and the charts' colours: a blank or single-colour
  // page has a handful of colours at most.
  EXPECT_GT(stats.distinct_colors, 64u);
  EXPECT_GT(stats.non_white_share, 0.03);
  EXPECT_LT(stats.non_white_share, 0.9);
  // The first screen holds the first volume's charts, drawn in blue.
  EXPECT_GT(stats.chart_blue_pixels, 500u);
}

TEST_F(ReportBrowser, FitsAPhoneScreen) {
  std::string dir = MakeTempDir("phone");
  std::string html = WriteScenarioReport(dir);
  std::string png = dir + "/phone.png";
  BrowserRun run = RunChromium(
      dir, {"--window-size=390,1600", "--screenshot=" + png}, "file://" + html);
  ASSERT_TRUE(run.finished) << run.log;
  EXPECT_EQ(ConsoleLines(run.log), std::vector<std::string>{});
  PngStats stats;
  ASSERT_TRUE(DecodePng(png, &stats)) << run.log;
  EXPECT_EQ(stats.width, 390);
  EXPECT_GT(stats.distinct_colors, 32u);
  EXPECT_GT(stats.non_white_share, 0.03);
}

TEST_F(ReportBrowser, PrintsToPdf) {
  std::string dir = MakeTempDir("print");
  std::string html = WriteScenarioReport(dir);
  std::string pdf = dir + "/report.pdf";
  BrowserRun run =
      RunChromium(dir, {"--no-pdf-header-footer", "--print-to-pdf=" + pdf},
                  "file://" + html);
  ASSERT_TRUE(run.finished) << run.log;
  EXPECT_EQ(ConsoleLines(run.log), std::vector<std::string>{});
  std::string bytes;
  ASSERT_TRUE(ReadTextFile(pdf, &bytes).ok()) << run.log;
  EXPECT_EQ(bytes.substr(0, 5), "%PDF-");
  EXPECT_GT(bytes.size(), 20'000u);  // several pages of text and vectors
}

// The console check above would pass vacuously if Chromium stopped logging
// console messages: a page with a forbidden external image must show one.
TEST_F(ReportBrowser, ConsoleCheckSeesABlockedExternalLoad) {
  std::string dir = MakeTempDir("control");
  std::string html = dir + "/bad.html";
  ASSERT_TRUE(
      WriteTextFile(html,
                    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"/>"
                    "<meta http-equiv=\"Content-Security-Policy\" "
                    "content=\"default-src 'none'\"/><title>x</title></head>"
                    "<body><img src=\"http://127.0.0.1:9/x.png\" alt=\"\"/>"
                    "</body></html>")
          .ok());
  BrowserRun run = RunChromium(
      dir, {"--window-size=200,200", "--screenshot=" + dir + "/bad.png"},
      "file://" + html);
  ASSERT_TRUE(run.finished) << run.log;
  EXPECT_EQ(ConsoleLines(run.log).size(), 1u) << run.log;
}

}  // namespace
}  // namespace pglayout::report
