// What `modelplane dashboard` runs (its flags are in ../dashboard.ts): the dashboard server, read with the
// kubeconfig's credentials, until SIGINT or SIGTERM.
import { readFileSync } from 'node:fs';
import { KubeClient, loadKubeConfig } from '@modelplane/runtime/client';
import { Logger, setProcessLogSink } from '@modelplane/runtime/log';
import { exitWithStartupError } from '../errors.ts';
import { parsePort, UsageError } from '../options.ts';
import { formatLogLine } from '../view/logs.ts';
import { dashboardBanner, startDashboard, startSignInDashboard } from './index.ts';
import type { DashboardCommandOptions } from './options.ts';

/** serves the dashboard; a failure to start is printed and ends the process with 2 */
export async function runDashboard(opts: DashboardCommandOptions): Promise<void> {
  // a person reads this terminal: one readable line per log line, not JSON (docs/dashboard.md)
  setProcessLogSink({ write: (line) => process.stderr.write(`${formatLogLine(line)}\n`) });
  const log = new Logger({ component: 'dashboard' });
  try {
    const text = opts.kubeconfig ? readFileSync(opts.kubeconfig, 'utf8') : undefined;
    const kc = loadKubeConfig(text);
    const common = {
      host: opts.address,
      port: parsePort(opts.port, '--port'),
      cluster: kc.getCurrentCluster()?.server ?? 'unknown cluster',
      logger: log,
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
      ...(opts.readOnly ? { readOnly: true } : {}),
    };
    if (opts.auth !== 'kubeconfig' && opts.auth !== 'tokenreview')
      throw new UsageError(`invalid --auth "${opts.auth}": use "kubeconfig" or "tokenreview"`);
    let d: { close(): Promise<void> };
    if (opts.auth === 'tokenreview') {
      const signIn = await startSignInDashboard({ ...common, kubeconfig: kc });
      process.stdout.write(`dashboard: ${signIn.url}  (each person signs in with their own Kubernetes token)\n`);
      d = signIn;
    } else {
      const own = await startDashboard({
        ...common,
        client: await KubeClient.create(kc),
        user: kc.getCurrentUser()?.name ?? 'unknown user',
      });
      process.stdout.write(`${dashboardBanner(own)}\n`);
      if (own.state.hidden.length > 0)
        process.stdout.write(`not visible with these credentials: ${own.state.hidden.join(', ')}\n`);
      d = own;
    }
    const stop = async () => {
      await d.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  } catch (err) {
    exitWithStartupError(err, process.argv.slice(2), 'dashboard');
  }
}
