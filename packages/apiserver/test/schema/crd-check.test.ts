// checkCrd: every rule outside the version schemas violated once, with the exact cause kube-apiserver
// reports (field, reason, message). Schema rules are in schema-crd-schema.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../src/errors.ts';
import { checkCrd, defaultCrd } from '../../src/schema/index.ts';
import type { CustomResourceDefinition } from '../../src/schema/types.ts';
import { aimServiceCrd } from './fixture.ts';

type Crd = CustomResourceDefinition;
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const c = (field: string, reason: string, message: string): StatusCause => ({ field, reason, message });

interface Case {
  name: string;
  mutate: (crd: Crd) => void;
  want: StatusCause[];
}

const cases: Case[] = [
  {
    name: 'metadata.name must be <plural>.<group>',
    mutate: (crd) => {
      crd.metadata.name = 'services.aim.eai.amd.com';
    },
    want: [
      c(
        'metadata.name',
        'FieldValueInvalid',
        'Invalid value: "services.aim.eai.amd.com": must be spec.names.plural+"."+spec.group',
      ),
    ],
  },
  {
    name: 'group needs a dot',
    mutate: (crd) => {
      crd.spec.group = 'aim';
      crd.metadata.name = 'aimservices.aim';
    },
    want: [c('spec.group', 'FieldValueInvalid', 'Invalid value: "aim": should be a domain with at least one dot')],
  },
  {
    name: 'scope must be Cluster or Namespaced',
    mutate: (crd) => {
      crd.spec.scope = 'Global';
    },
    want: [
      c(
        'spec.scope',
        'FieldValueNotSupported',
        'Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      ),
    ],
  },
  {
    name: 'plural must be a DNS-1035 label',
    mutate: (crd) => {
      crd.spec.names.plural = 'AIMServices';
      crd.metadata.name = 'AIMServices.aim.eai.amd.com';
    },
    want: [
      c(
        'metadata.name',
        'FieldValueInvalid',
        `Invalid value: "AIMServices.aim.eai.amd.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ),
      c('spec.names.plural', 'FieldValueInvalid', `Invalid value: "AIMServices": ${DNS1035}`),
    ],
  },
  {
    name: 'kind and listKind may not be the same',
    mutate: (crd) => {
      crd.spec.names.listKind = 'AIMService';
    },
    want: [
      c(
        'spec.names.listKind',
        'FieldValueInvalid',
        'Invalid value: "AIMService": kind and listKind may not be the same',
      ),
    ],
  },
  {
    name: 'shortNames and categories must be DNS-1035 labels',
    mutate: (crd) => {
      crd.spec.names.shortNames = ['aim_svc'];
      crd.spec.names.categories = ['all', '1st'];
    },
    want: [
      c('spec.names.shortNames[0]', 'FieldValueInvalid', `Invalid value: "aim_svc": ${DNS1035}`),
      c('spec.names.categories[1]', 'FieldValueInvalid', `Invalid value: "1st": ${DNS1035}`),
    ],
  },
  {
    name: 'singular is required (when not defaulted)',
    mutate: (crd) => {
      crd.spec.names.singular = '';
    },
    want: [c('spec.names.singular', 'FieldValueRequired', 'Required value')],
  },
  {
    name: 'exactly one storage version',
    mutate: (crd) => {
      crd.spec.versions[0]!.storage = false;
    },
    want: [
      c(
        'spec.versions',
        'FieldValueInvalid',
        `Invalid value: ${JSON.stringify(aimServiceCrd().spec.versions.map((v) => ({ ...v, storage: false })))}: must have exactly one version marked as storage version`,
      ),
    ],
  },
  {
    name: 'version names must be DNS-1035 labels (reported for spec.version too)',
    mutate: (crd) => {
      crd.spec.versions[0]!.name = 'V1';
    },
    want: [
      c('spec.versions[0].name', 'FieldValueInvalid', `Invalid value: "V1": ${DNS1035}`),
      c('spec.version', 'FieldValueInvalid', `Invalid value: "V1": ${DNS1035}`),
    ],
  },
  {
    name: 'every version needs a schema',
    mutate: (crd) => {
      delete crd.spec.versions[0]!.schema;
    },
    want: [c('spec.versions[0].schema.openAPIV3Schema', 'FieldValueRequired', 'Required value')],
  },
  {
    name: 'scale specReplicasPath must be under .spec',
    mutate: (crd) => {
      crd.spec.versions[0]!.subresources!.scale!.specReplicasPath = '.status.replicas';
    },
    want: [
      c(
        'spec.subresources.scale.specReplicasPath',
        'FieldValueInvalid',
        'Invalid value: ".status.replicas": should be a json path under .spec',
      ),
    ],
  },
  {
    name: 'scale statusReplicasPath is required',
    mutate: (crd) => {
      crd.spec.versions[0]!.subresources!.scale!.statusReplicasPath = '';
    },
    want: [c('spec.subresources.scale.statusReplicasPath', 'FieldValueRequired', 'Required value')],
  },
  {
    name: 'scale labelSelectorPath must be under .spec or .status',
    mutate: (crd) => {
      crd.spec.versions[0]!.subresources!.scale!.labelSelectorPath = '.metadata.labels';
    },
    want: [
      c(
        'spec.subresources.scale.labelSelectorPath',
        'FieldValueInvalid',
        'Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
      ),
    ],
  },
  {
    name: 'printer column type and jsonPath',
    mutate: (crd) => {
      crd.spec.versions[0]!.additionalPrinterColumns!.push({
        name: 'Model',
        type: 'text',
        jsonPath: 'spec.model.name',
      });
    },
    want: [
      c(
        'spec.additionalPrinterColumns[3].type',
        'FieldValueInvalid',
        'Invalid value: "text": must be one of boolean,date,integer,number,string',
      ),
      c(
        'spec.additionalPrinterColumns[3].JSONPath',
        'FieldValueInvalid',
        'Invalid value: "spec.model.name": must be a simple json path starting with .',
      ),
    ],
  },
  {
    name: 'printer column format',
    mutate: (crd) => {
      crd.spec.versions[0]!.additionalPrinterColumns![1]!.format = 'uint8';
    },
    want: [
      c(
        'spec.additionalPrinterColumns[1].format',
        'FieldValueInvalid',
        'Invalid value: "uint8": must be one of byte,date,date-time,double,float,int32,int64,password',
      ),
    ],
  },
  {
    name: 'conversion strategy must be None or Webhook',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Magic' };
    },
    want: [
      c(
        'spec.conversion.strategy',
        'FieldValueNotSupported',
        'Unsupported value: "Magic": supported values: "None", "Webhook"',
      ),
    ],
  },
  {
    name: 'webhook conversion needs clientConfig and conversionReviewVersions',
    mutate: (crd) => {
      crd.spec.conversion = { strategy: 'Webhook' };
    },
    want: [
      c(
        'spec.conversion.webhookClientConfig',
        'FieldValueRequired',
        'Required value: required when strategy is set to Webhook',
      ),
      c('spec.conversion.conversionReviewVersions', 'FieldValueRequired', 'Required value'),
    ],
  },
  {
    name: 'webhook conversion URL must be https and review versions recognised',
    mutate: (crd) => {
      crd.spec.conversion = {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: 'http://convert.example.com/x' }, conversionReviewVersions: ['v2'] },
      };
    },
    want: [
      c(
        'spec.conversion.webhookClientConfig.url',
        'FieldValueInvalid',
        'Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      ),
      c(
        'spec.conversion.conversionReviewVersions',
        'FieldValueInvalid',
        'Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
      ),
    ],
  },
  {
    name: 'webhook clientConfig is forbidden without the Webhook strategy',
    mutate: (crd) => {
      crd.spec.conversion = {
        strategy: 'None',
        webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] },
      };
    },
    want: [
      c(
        'spec.conversion.webhookClientConfig',
        'FieldValueForbidden',
        'Forbidden: should not be set when strategy is not set to Webhook',
      ),
      c(
        'spec.conversion.conversionReviewVersions',
        'FieldValueForbidden',
        'Forbidden: should not be set when strategy is not set to Webhook',
      ),
    ],
  },
];

describe('checkCrd', () => {
  it('accepts the AIMService CRD', () => {
    assert.deepEqual(checkCrd(aimServiceCrd()), []);
  });

  for (const tc of cases) {
    it(tc.name, () => {
      const crd = aimServiceCrd();
      tc.mutate(crd);
      assert.deepEqual(checkCrd(crd), tc.want);
    });
  }

  it('rejects duplicate version names', () => {
    const crd = aimServiceCrd();
    crd.spec.versions.push({ ...structuredClone(crd.spec.versions[0]!), storage: false });
    const causes = checkCrd(crd);
    assert.deepEqual(
      causes.map((x) => [x.field, x.reason, x.message.replace(/^Invalid value: .*: /s, '')]),
      [['spec.versions', 'FieldValueInvalid', 'must contain unique version names']],
    );
  });

  it('on update keeps group and plural immutable, and kind once Established', () => {
    const old = aimServiceCrd();
    old.status = { conditions: [{ type: 'Established', status: 'True' }] };
    const crd = aimServiceCrd();
    crd.spec.names.kind = 'AIMSvc';
    crd.spec.names.listKind = 'AIMSvcList';
    assert.deepEqual(checkCrd(crd, old), [
      c('spec.names.kind', 'FieldValueInvalid', 'Invalid value: "AIMSvc": field is immutable'),
    ]);
    old.status = {};
    assert.deepEqual(checkCrd(crd, old), []);
  });

  it('reports JSON type errors instead of failing on them', () => {
    const crd = aimServiceCrd() as any;
    crd.spec.versions = 'v1';
    assert.deepEqual(checkCrd(crd), [
      c(
        'spec.versions',
        'FieldValueTypeInvalid',
        'Invalid value: "string": spec.versions in body must be of type array: "string"',
      ),
    ]);
    const crd2 = aimServiceCrd() as any;
    crd2.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas = null;
    crd2.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'][0].rule = 7;
    assert.deepEqual(checkCrd(crd2), [
      c(
        'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas',
        'FieldValueTypeInvalid',
        'Invalid value: "null": spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas in body must be of type object: "null"',
      ),
      c(
        'spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule',
        'FieldValueTypeInvalid',
        'Invalid value: "integer": spec.versions[0].schema.openAPIV3Schema.properties.spec.x-kubernetes-validations[0].rule in body must be of type string: "integer"',
      ),
    ]);
  });

  it('defaultCrd fills singular, listKind and the conversion strategy like the v1 defaulter', () => {
    const crd = aimServiceCrd();
    crd.spec.names = { plural: 'aimservices', kind: 'AIMService' };
    delete crd.spec.conversion;
    defaultCrd(crd);
    assert.equal(crd.spec.names.singular, 'aimservice');
    assert.equal(crd.spec.names.listKind, 'AIMServiceList');
    assert.deepEqual(crd.spec.conversion, { strategy: 'None' });
    assert.deepEqual(checkCrd(crd), []);
  });
});
