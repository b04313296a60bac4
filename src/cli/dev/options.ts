// The `dev` command's options, parsed from its flags by src/cli/dev.ts and run by dev/command.ts. A module of its
// own so the command module need not import the flags module that imports it lazily.

export interface DevOptions {
  port: string;
  kubeconfig: string;
  only?: string;
  dataDir?: string;
  examples: boolean;
  examplesDir: string;
  exitWhenReady?: boolean;
  timeout: string;
  auditLog?: string;
  controllers: string | false;
  cluster: string;
  verbose?: boolean;
  logDir: string;
  dashboard: boolean;
  dashboardPort: string;
  dashboardAddress: string;
  prometheus: boolean;
}
