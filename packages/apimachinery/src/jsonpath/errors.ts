/**
 * Error raised while parsing or executing a Kubernetes JSONPath template.
 * `message` is the text client-go produces (e.g. `unclosed action`, `invalid array index "key"`, `name is not found`),
 * so callers can show exactly what kubectl would show after its own prefix.
 */
export class JsonPathError extends Error {
  /** `parse` for template syntax errors, `execute` for errors evaluating the template against data. */
  readonly phase: 'parse' | 'execute';
  /** The template text, when known. */
  readonly template: string | undefined;

  constructor(message: string, phase: 'parse' | 'execute', template?: string) {
    super(message);
    this.name = 'JsonPathError';
    this.phase = phase;
    this.template = template;
  }
}

/**
 * Internal execution failure. client-go's eval functions return a (possibly non-empty) partial result together with
 * the error, and the `exists` filter (`[?(@.x)]`) looks at that partial result while ignoring the error; this class
 * carries it so the port can do the same.
 */
export class EvalFailure extends Error {
  readonly partial: readonly unknown[];

  constructor(message: string, partial: readonly unknown[]) {
    super(message);
    this.name = 'EvalFailure';
    this.partial = partial;
  }
}
