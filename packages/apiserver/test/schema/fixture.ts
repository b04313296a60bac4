// A realistic CRD for the schema tests: an AIMService-shaped resource (aim.eai.amd.com/v1alpha1) using the
// schema features real operator CRDs use: defaults (nested too), enums, patterns, int-or-string,
// quantities, list-map env, set tags, CEL rules (one transition rule), an embedded resource, status and scale.
import type { CustomResourceDefinition, JSONSchemaProps } from '../../src/schema/types.ts';

export function aimServiceSchema(): JSONSchemaProps {
  return {
    type: 'object',
    description: 'AIMService deploys a model behind an inference endpoint.',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 40 } } },
      spec: {
        type: 'object',
        required: ['model'],
        'x-kubernetes-validations': [
          {
            rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas',
            message: 'minReplicas must not exceed maxReplicas',
          },
        ],
        properties: {
          model: {
            type: 'object',
            'x-kubernetes-validations': [
              {
                rule: '[has(self.name), has(self.image)].filter(x, x).size() == 1',
                message: 'exactly one of name or image must be set',
              },
              { rule: 'self == oldSelf', message: 'model is immutable' },
            ],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' },
              image: { type: 'string', minLength: 1 },
            },
          },
          replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 100, default: 1 },
          minReplicas: { type: 'integer', minimum: 1 },
          maxReplicas: { type: 'integer', minimum: 1 },
          gpuFraction: { type: 'number', exclusiveMinimum: true, minimum: 0, maximum: 1, multipleOf: 0.25 },
          caching: {
            type: 'object',
            default: {},
            properties: {
              mode: { type: 'string', enum: ['Dedicated', 'Shared', 'Auto', 'Always', 'Never'], default: 'Shared' },
              storage: {
                type: 'object',
                default: {},
                properties: {
                  size: { type: 'string', format: 'quantity', default: '10Gi' },
                  headroomPercent: { type: 'integer', minimum: 0, default: 10 },
                },
              },
            },
          },
          port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
          routing: {
            type: 'object',
            properties: {
              enabled: { type: 'boolean' },
              pathTemplate: { type: 'string', maxLength: 200 },
              requestTimeout: { type: 'string', format: 'duration' },
              annotations: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 3 },
            },
          },
          env: {
            type: 'array',
            maxItems: 4,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, value: { type: 'string' } },
            },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', minItems: 1, items: { type: 'string' } },
          owner: { type: 'string', format: 'email' },
          endpoint: { type: 'string', format: 'uri' },
          since: { type: 'string', format: 'date-time' },
          podTemplate: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          extra: {
            type: 'object',
            'x-kubernetes-preserve-unknown-fields': true,
            properties: { known: { type: 'string' } },
          },
          note: { type: 'string', nullable: true },
          labels: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } },
        },
      },
      status: {
        type: 'object',
        properties: {
          status: {
            type: 'string',
            enum: ['Pending', 'Starting', 'Running', 'Degraded', 'Failed'],
            default: 'Pending',
          },
          observedGeneration: { type: 'integer', format: 'int64' },
          replicas: { type: 'integer' },
          selector: { type: 'string' },
          conditions: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['type'],
            items: {
              type: 'object',
              required: ['type', 'status'],
              properties: {
                type: { type: 'string' },
                status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                message: { type: 'string' },
              },
            },
          },
        },
      },
    },
  };
}

export function aimServiceCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'aimservices.aim.eai.amd.com' },
    spec: {
      group: 'aim.eai.amd.com',
      scope: 'Namespaced',
      names: {
        plural: 'aimservices',
        singular: 'aimservice',
        kind: 'AIMService',
        listKind: 'AIMServiceList',
        shortNames: ['aimsvc'],
        categories: ['aim'],
      },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: aimServiceSchema() },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Status', type: 'string', jsonPath: '.status.status' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
      conversion: { strategy: 'None' },
    },
  };
}

/** A valid AIMService as a user would apply it (before pruning and defaulting). */
export function aimService(): Record<string, any> {
  return {
    apiVersion: 'aim.eai.amd.com/v1alpha1',
    kind: 'AIMService',
    metadata: { name: 'llama-3-8b', namespace: 'default', labels: { team: 'ml' } },
    spec: {
      model: { name: 'llama-3-8b-instruct' },
      minReplicas: 1,
      maxReplicas: 3,
      port: 8080,
      routing: {
        enabled: true,
        pathTemplate: '/{{.metadata.namespace}}/{{.metadata.name}}',
        requestTimeout: '30s',
        annotations: { a: 'b' },
      },
      env: [
        { name: 'HF_HOME', value: '/cache' },
        { name: 'VLLM_LOG', value: 'info' },
      ],
      tags: ['llm', 'chat'],
      owner: 'ml-team@example.com',
      endpoint: 'https://models.example.com/v1',
      since: '2026-01-02T03:04:05Z',
      podTemplate: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tpl' }, spec: { containers: [] } },
    },
  };
}
