// The AIMService kind as the AIM provider builds it (the AIM API group is modelplane's own).
import { AIM_API_VERSION } from '../../../../apis/aim/index.ts';

export const AIM_SERVICE_API_VERSION = AIM_API_VERSION;
export const AIM_SERVICE_KIND = 'AIMService';
export const AIM_SERVICE_RESOURCE = 'aimservices';
export { type AIMService, AIMServices } from '../../../aim/shared/kinds.ts';
