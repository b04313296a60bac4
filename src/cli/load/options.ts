// The `load` command's options, parsed from its flags by src/cli/load.ts and run by load/command.ts. A module of its
// own so the command module need not import the flags module that imports it lazily.

export interface LoadFlags {
  url?: string[];
  service?: string;
  kubeconfig: string;
  model: string;
  concurrency: string;
  duration: string;
  maxTokens: string;
  rate?: string;
  stream?: boolean;
}
