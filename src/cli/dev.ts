// `modelplane dev`: the embedded cluster. With `--only apiserver` just the Kubernetes-compatible API
// server; otherwise also the simulators and the quickstart examples, with a live status table until
// every example is Ready. The terminal gets a compact live view and readable warnings; the JSON logs go to a
// file under .modelplane/logs/ (streamed with --verbose). This file holds only the command's flags: what it
// runs lives in dev/command.ts, imported when the command runs.
import type { Command } from 'commander';
import type { DevOptions } from './dev/options.ts';
import { importCommand } from './lazy.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export function registerDev(program: Command): void {
  program
    .command('dev')
    .description(COMMAND_SUMMARIES.dev)
    .option('--port <port>', 'HTTPS port of the API server (0 picks a free one)', '6443')
    .option('--kubeconfig <path>', 'where to write the admin kubeconfig', '.modelplane/kubeconfig')
    .option('--only <component>', 'start only this component (apiserver)')
    .option('--data-dir <dir>', 'persist cluster state in this directory across restarts')
    .option('--no-examples', 'do not apply the quickstart examples')
    .option('--examples-dir <dir>', 'the examples to apply', 'examples/quickstart')
    .option('--exit-when-ready', 'exit 0 once every example is Ready (non-zero after --timeout)')
    .option('--timeout <seconds>', 'how long --exit-when-ready waits', '120')
    .option('--audit-log <file>', 'append one JSON line per API request to this file')
    .option(
      '--controllers <list>',
      'controller sets and providers to run in this process, comma-separated, or "all"',
      'all',
    )
    .option(
      '--cluster <backend>',
      'embedded (the built-in API server) or real (etcd + kube-apiserver + kube-controller-manager built by `npm run build:kube`)',
      'embedded',
    )
    .option('--no-controllers', 'run no controllers (start them yourself, e.g. `modelplane run` under its own RBAC)')
    .option('--verbose', 'stream every log line to the terminal (readable), not just warnings and errors')
    .option('--log-dir <dir>', 'where the JSON log file is written', '.modelplane/logs')
    .option('--no-dashboard', 'do not serve the web dashboard')
    .option('--dashboard-port <port>', 'port of the web dashboard (taken: a free one is used instead)', '8090')
    .option(
      '--no-prometheus',
      'do not start Prometheus for the saturation autoscaler (it starts when installed: npm run setup:prometheus)',
    )
    .option(
      '--dashboard-address <host>',
      'address the dashboard listens on; anything but loopback requires the token printed at start',
      '127.0.0.1',
    )
    .action(async (opts: DevOptions) => {
      // loaded when the command runs: every other command (and this one's --help) starts without the
      // API server, the simulators and the dev cluster's modules
      const { runDev } = await importCommand('dev', () => import('./dev/command.ts'));
      await runDev(opts);
    });
}
