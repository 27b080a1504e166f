/**
 * Preloaded (`node --require`) into a command the benchmark times: on exit, writes the process's own CPU
 * time and peak RSS (process.resourceUsage()) to the file named by BENCH_USAGE_FILE, so that a process that
 * has exited can still be measured. Nothing else.
 */
const { writeFileSync } = require('node:fs');

const file = process.env.BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({ userUs: usage.userCPUTime, systemUs: usage.systemCPUTime, maxRssKiB: usage.maxRSS }),
    );
  });
}
