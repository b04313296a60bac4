// Converts stored custom resources to the version a client asked for, and incoming ones to the storage
// version. Strategy None (and every built-in kind) only rewrites apiVersion, synchronously; strategy
// Webhook sends every object not already in the wanted version to the CRD's conversion webhook, a list's
// objects in one ConversionReview. A webhook failure is kube's 500 with an empty reason, which kubectl
// prints as `Error from server: conversion webhook for <group>/<version>, Kind=<Kind> failed: …`.
import type { ResolveDeps } from '../admission/webhook-client.ts';
import { StatusError } from '../errors.ts';
import type { ResourceType } from '../resource-types/resource-type.ts';
import { groupVersion } from '../resource-types/resource-type.ts';
import type { KubeObject } from '../types.ts';
import { type ConversionWebhookConfig, callConversionWebhook } from './webhook-conversion.ts';

export class ObjectConverter {
  constructor(private readonly deps: ResolveDeps) {}

  /** The object in `version` when that needs no webhook call; undefined when the webhook must be asked. */
  trySync(rt: ResourceType, obj: KubeObject, version: string): KubeObject | undefined {
    const gv = groupVersion(rt.group, version);
    if (obj.apiVersion === gv) return obj;
    if (rt.conversion?.strategy === 'Webhook') return undefined;
    return { ...obj, apiVersion: gv };
  }

  /** Converts objects of one resource to `version`, keeping their order. Throws kube's 500 on webhook failure. */
  async convert(rt: ResourceType, objects: KubeObject[], version: string): Promise<KubeObject[]> {
    const out = objects.slice();
    const pending: number[] = [];
    objects.forEach((o, i) => {
      const done = this.trySync(rt, o, version);
      if (done) out[i] = done;
      else pending.push(i);
    });
    if (pending.length === 0) return out;
    let converted: KubeObject[];
    try {
      const cfg = rt.conversion?.webhook as ConversionWebhookConfig | undefined;
      converted = await callConversionWebhook(
        cfg,
        pending.map((i) => objects[i]!),
        groupVersion(rt.group, version),
        this.deps,
      );
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw new StatusError(500, '', (e as Error).message);
    }
    pending.forEach((idx, j) => {
      out[idx] = converted[j]!;
    });
    return out;
  }
}
