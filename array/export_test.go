package array

// PoolHeld reports the bytes and blocks the recycled-storage pool holds.
func PoolHeld() (held, blocks int) { return poolHeld() }

// PoolStats reports the pool's hits (recycled hand-outs) and misses.
func PoolStats() (hits, misses uint64) { return pool.hits.Load(), pool.misses.Load() }

// SetPoolLimit sets the pool's byte limit and returns the old one.
func SetPoolLimit(n int) int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	old := poolLimit
	poolLimit = n
	pool.trim()
	return old
}

// MinPooled is the smallest pooled block in bytes.
const MinPooled = minPooled

// PoolClass is poolClass.
func PoolClass(n int) int { return poolClass(n) }

// BlockOf is the address of r's storage, read without exposing it.
func BlockOf(r *Raw) uintptr { return uintptr(r.st.base) }

// PoolForced reports the collections the pool asked for.
func PoolForced() uint64 { return pool.forced.Load() }

// SetLendBudget sets the bytes lent between collections before a miss
// asks for one, and returns the old value.
func SetLendBudget(n int) int {
	old := lendBudget
	lendBudget = n
	return old
}
