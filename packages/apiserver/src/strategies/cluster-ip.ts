// Hands out Service cluster IPs from 10.96.0.0/16, as kube-apiserver's allocator does (10.96.0.1 is
// the `kubernetes` Service).
export class ClusterIpAllocator {
  private next = 10;

  allocate(): string {
    const n = this.next++;
    return `10.96.${Math.floor(n / 256) % 256}.${n % 256}`;
  }
}
