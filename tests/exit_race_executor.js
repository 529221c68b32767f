// How CodeBuddy Code's CLI (2.117.0, dist/codebuddy-headless.js, class HookExecutor) runs a
// command hook, reduced to what decides what it reads: `/bin/sh -c COMMAND` with stdio pipes,
// stdout gathered from 'data' events, and the hook resolved at the child's 'exit' event, where
// stdout is destroyed and what was gathered so far is parsed (it never waits for 'close'):
//   AQ.stdout?.on("data",An=>{Ap+=decodeBuffer(An),…}), AQ.on("exit",Al=>{…AQ.stdout?.destroy(),
//   …let Ag=this.parseHookOutput(Al,Ap,Ah,An)…Au(Ag)})
// Around it, what the CLI has going on at a session's start: other children exiting (each
// SIGCHLD makes libuv reap every exited child, the hook too) and slow callbacks in the loop.
//
// node exit_race_executor.js COMMAND STDIN RUNS  ->  one JSON line: each run's stdout at 'exit'.
"use strict";
const { spawn } = require("child_process");

const [command, stdin, runs] = [process.argv[2], process.argv[3], Number(process.argv[4])];

function busy(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {}
}

let stopping = false;
const chatty = spawn("/bin/sh", ["-c", "while true; do echo x; sleep 0.002; done"]);
chatty.stdout.on("data", () => busy(4));
function churn() {
  if (!stopping) spawn("/bin/sh", ["-c", "sleep 0.00$((RANDOM % 9 + 1))"]).on("exit", churn);
}
churn();
churn();

function runHook() {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn("/bin/sh", ["-c", command], { stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => {
      out += chunk.toString("utf8");
    });
    child.on("exit", () => {
      child.stdout.destroy();
      child.stderr.destroy();
      resolve(out);
    });
    child.stdin.end(stdin);
  });
}

(async () => {
  const outputs = [];
  for (let i = 0; i < runs; i++) outputs.push(await runHook());
  stopping = true;
  chatty.kill();
  process.stdout.write(JSON.stringify(outputs) + "\n");
  process.exit(0);
})();
