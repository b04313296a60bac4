// `modelplane render -f FILE`: prints, without a cluster, the objects the controllers would create for the
// AIMServices and ModelDeployments in FILE (a file, a folder of *.yaml, or - for stdin), using the runtime
// configs, models and provider configs found beside them. Problems a controller would report as conditions
// go to stderr, and the exit code is 1 when any resource could not be rendered.
import { readFileSync } from 'node:fs';
import type { KubeObject } from '@modelplane/runtime/meta';
import type { Command } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import { operatorNamespaceFromEnv } from '../common/runtime-config/index.ts';
import { renderObjects } from '../controllers/render.ts';
import { allCrds } from './crds.ts';
import { readManifests } from './dev/examples.ts';
import { exitWithStartupError } from './errors.ts';
import { UsageError } from './options.ts';
import { strictProblems } from './strict-fields.ts';
import { COMMAND_SUMMARIES } from './summaries.ts';

export function readInput(file: string): KubeObject[] {
  if (file === '-') return parseYaml(readFileSync(0, 'utf8'), 'stdin');
  try {
    return readManifests(file).map((m) => m.obj);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
    return parseYaml(readFileSync(file, 'utf8'), file);
  }
}

function parseYaml(text: string, where: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new UsageError(`${where}: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as KubeObject | null;
    if (!obj) continue;
    if (!obj.apiVersion || !obj.kind || !obj.metadata?.name)
      throw new UsageError(`${where}: every document needs apiVersion, kind and metadata.name`);
    out.push(obj);
  }
  return out;
}

export function registerRender(program: Command): void {
  program
    .command('render')
    .description(COMMAND_SUMMARIES.render)
    .requiredOption('-f, --filename <path>', 'a YAML file, a folder of *.yaml files, or - for stdin')
    .addHelpText(
      'after',
      '\nRuntime configs, models and InferenceProviderConfigs in the input are used as the cluster would have them;\nthe providers modelplane ships are assumed to be running. Objects without a uid get a placeholder one.',
    )
    .action(async (opts: { filename: string }) => {
      try {
        const input = readInput(opts.filename);
        // what an API server would refuse (a kind or field it does not have) is refused here too
        const crds = allCrds();
        const refused = input.flatMap((o) =>
          strictProblems(o, crds).map(
            (p) =>
              `${opts.filename}: ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}: ${p}`,
          ),
        );
        if (refused.length > 0) {
          process.stderr.write(`${refused.join('\n')}\n`);
          process.exitCode = 1;
          return;
        }
        const results = await renderObjects(input, {
          operatorNamespace: operatorNamespaceFromEnv(process.env),
        });
        let failed = false;
        for (const r of results) {
          for (const o of r.objects)
            process.stdout.write(`---\n# rendered from ${r.source}\n${stringify(o, { lineWidth: 0 })}`);
          for (const p of r.problems) process.stderr.write(`${r.source}: ${p}\n`);
          if (r.objects.length === 0 && r.problems.length > 0) failed = true;
        }
        if (results.length === 0) process.stderr.write('render: the input has no AIMService or ModelDeployment\n');
        process.exitCode = failed ? 1 : 0;
      } catch (err) {
        exitWithStartupError(err, process.argv.slice(2), 'render');
      }
    });
}
