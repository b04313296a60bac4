// The `status` command's options, parsed from its flags by src/cli/status.ts and run by status/command.ts. A module of its
// own so the command module need not import the flags module that imports it lazily.

export interface StatusOptions {
  kubeconfig?: string;
  namespace?: string;
  watch?: boolean;
}
