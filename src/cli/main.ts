// The `modelplane` command. Each subcommand lives in its own file and registers itself here.
import { Command } from 'commander';
import { registerCrds } from './crds.ts';
import { registerDev } from './dev.ts';
import { registerRbac } from './rbac.ts';
import { registerRun } from './run.ts';

const program = new Command();
program
  .name('modelplane')
  .description('A Kubernetes operator that serves large language models, with an embedded cluster for development.')
  .version('0.1.0')
  .showHelpAfterError();

registerDev(program);
registerRun(program);
registerCrds(program);
registerRbac(program);

await program.parseAsync(process.argv);
