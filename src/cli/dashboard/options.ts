// The `dashboard` command's options, parsed from its flags by src/cli/dashboard.ts and run by dashboard/command.ts. A module of its
// own so the command module need not import the flags module that imports it lazily.

export interface DashboardCommandOptions {
  kubeconfig?: string;
  namespace?: string;
  address: string;
  port: string;
  readOnly?: boolean;
  auth: string;
}
