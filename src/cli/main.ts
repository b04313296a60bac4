// The `modelplane` command. Each subcommand lives in its own module, loaded only when it is the command invoked:
// `modelplane dev --help` loads no controller and `modelplane --help` lists every command from summaries.ts
// without loading any. The production commands' modules load only production code (docs/deploy.md); the
// dev-only ones import what they run when they run.
import { Command } from 'commander';
import { exitWithStartupError } from './errors.ts';
import { COMMAND_SUMMARIES, type CommandName } from './summaries.ts';

type Register = (program: Command) => void;

const COMMANDS: Record<CommandName, () => Promise<Register>> = {
  dev: async () => (await import('./dev.ts')).registerDev,
  run: async () => (await import('./run.ts')).registerRun,
  provider: async () => {
    const [{ registerProvider }, { BUILTIN_PROVIDER_DEFINITIONS }] = await Promise.all([
      import('./provider.ts'),
      import('../controllers/kubeairunway/providers/index.ts'),
    ]);
    return (program) => registerProvider(program, Object.values(BUILTIN_PROVIDER_DEFINITIONS));
  },
  crds: async () => (await import('./crds.ts')).registerCrds,
  rbac: async () => (await import('./rbac.ts')).registerRbac,
  render: async () => (await import('./render.ts')).registerRender,
  status: async () => (await import('./status.ts')).registerStatus,
  explain: async () => (await import('./explain.ts')).registerExplain,
  dashboard: async () => (await import('./dashboard.ts')).registerDashboard,
  chart: async () => (await import('./chart.ts')).registerChart,
  load: async () => (await import('./load.ts')).registerLoad,
};

/** the command the arguments name (`modelplane help X` names X), if any */
function invoked(args: string[]): CommandName | undefined {
  const words = args.filter((a) => !a.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? (name as CommandName) : undefined;
}

// `modelplane crds | head`: a reader that stops early closes the pipe; that ends the output, not with a stack trace
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

const name = invoked(process.argv.slice(2));
const commandLine = name ? `modelplane ${name}` : 'modelplane';
const program = new Command();
program
  .name('modelplane')
  .description('A Kubernetes operator that serves large language models, with an embedded cluster for development.')
  .version('0.1.0')
  // a usage error is one line naming the problem and where help is, never the whole help text
  .configureOutput({
    outputError: (message, write) =>
      write(
        `${commandLine}: ${message
          .replace(/^error: /, '')
          .split('\n')
          .filter((l) => l.trim())
          .join(' ')} — see ${commandLine} --help\n`,
      ),
  });

for (const command of Object.keys(COMMANDS) as CommandName[]) {
  // every other command is listed by its summary only: it cannot run in this process, which runs `name`
  if (command === name) (await COMMANDS[command]())(program);
  else program.command(command).description(COMMAND_SUMMARIES[command]);
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  exitWithStartupError(err, process.argv.slice(2), name ?? '');
}
