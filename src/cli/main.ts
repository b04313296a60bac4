// The `modelplane` command. Each subcommand lives in its own file and registers itself here.
import { Command } from 'commander';
import { BUILTIN_PROVIDER_DEFINITIONS } from '../controllers/kubeairunway/providers/index.ts';
import { registerChart } from './chart.ts';
import { registerCrds } from './crds.ts';
import { registerDashboard } from './dashboard.ts';
import { registerDev } from './dev.ts';
import { registerLoad } from './load.ts';
import { registerProvider } from './provider.ts';
import { registerRbac } from './rbac.ts';
import { registerRender } from './render.ts';
import { registerRun } from './run.ts';
import { registerStatus } from './status.ts';

const program = new Command();
program
  .name('modelplane')
  .description('A Kubernetes operator that serves large language models, with an embedded cluster for development.')
  .version('0.1.0')
  .showHelpAfterError();

registerDev(program);
registerRun(program);
registerProvider(program, Object.values(BUILTIN_PROVIDER_DEFINITIONS));
registerCrds(program);
registerRbac(program);
registerRender(program);
registerStatus(program);
registerDashboard(program);
registerChart(program);
registerLoad(program);

await program.parseAsync(process.argv);
