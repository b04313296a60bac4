// Why a config could not be generated. The reason is the ConfigGenerated condition's reason
// (docs/llamastack.md, "Conditions"); the message names the field and what to do.
export type ConfigGenerationReason =
  | 'ConfigGenerationFailed'
  | 'BaseConfigRequired'
  | 'UnsupportedConfigVersion'
  | 'MissingProviderForResource'
  | 'UpgradeConfigFailure'
  | 'ConfigTooLarge'
  | 'ConfigSchemaInvalid'
  | 'InvalidBaseConfigLabel';

export class ConfigGenerationError extends Error {
  constructor(
    readonly reason: ConfigGenerationReason,
    message: string,
    /** the spec field at fault, e.g. spec.resources.models[0].provider */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ConfigGenerationError';
  }
}
