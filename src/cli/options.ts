// Parsing shared by the commands' flags; errors name the flag and what it takes.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parsePort(value: string, flag: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`invalid ${flag} "${value}": must be an integer between 0 and 65535`);
  return port;
}
