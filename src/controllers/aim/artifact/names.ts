// Names of what an artifact owns: the PVC (named like the artifact) and its Jobs (63 characters at most:
// the Job controller labels its pods with the Job's name).
import { derivedName } from '../../../common/model-storage/index.ts';

export const pvcName = (artifact: string) => artifact;
export const checkSizeJobName = (artifact: string) => derivedName([artifact, 'size'], [artifact, 'check-size']);
export const downloadJobName = (artifact: string, attempt: number) =>
  derivedName([artifact, 'dl', String(attempt)], [artifact, 'download', attempt]);
