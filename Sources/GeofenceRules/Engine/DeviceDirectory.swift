import CPrefetch

/// Where each device's engine lies in the pipeline's dictionary, found by the name its records
/// give, with a hash of the name's bytes rather than the standard library's seeded hasher.
///
/// When devices take turns (a fleet over MQTT, or its history replayed), every record names
/// another device than the one before, and finding its engine by its name in the dictionary cost
/// about 350 instructions a record (the seeded hash of the name, the probe, the comparison): as
/// much as the monitor spends on a fix far from every place. A name's FNV-1a hash (the one that
/// picks its shard) and one probe here cost a fraction of that.
///
/// A dictionary's positions are valid only until it next changes, so every position kept here is
/// forgotten at once, by starting a new generation, whenever the pipeline adds a device: a slot
/// of an older generation counts as empty. Positions are kept again as the devices are next
/// found. The table holds a position per device and its given name in 40 bytes, 53 to 107 a
/// device with its spare room (from three quarters full down to three eighths after growing).
struct DeviceDirectory: Sendable {
    private struct Slot: Sendable {
        var generation: UInt32
        /// The hash's low half: most names that are not the one sought are passed over by it.
        var hash: UInt32
        var given: String
        var index: [String: DeviceEngine].Index
    }

    /// Power-of-two many slots, or none before the first position is kept.
    private var slots: [Slot?] = []
    /// Slots of this generation are in use; every other one is empty. A position the directory
    /// gave stays valid for as long as the generation is the same.
    private(set) var generation: UInt32 = 1
    /// Slots in use.
    private var count = 0

    /// FNV-1a (64 bits) of a name's UTF-8 bytes: the same for a name on every run and in every
    /// process, unlike `Hasher`, so it also picks a device's shard.
    static func hash(_ name: String) -> UInt64 {
        // Over the name's bytes where they lie: walking its `utf8` view cost tens of instructions
        // a byte, and a copy of the name made to call `withUTF8` (which may change it) a quarter
        // more than reading its storage as it is.
        if let hash = name.utf8.withContiguousStorageIfAvailable(DeviceDirectory.hash(bytes:)) { return hash }
        return DeviceDirectory.hash(bytes: name.utf8)
    }

    private static func hash(bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// The position kept for the device records name `given`, whose ``hash(_:)`` is `hash`.
    func index(given: String, hash: UInt64) -> [String: DeviceEngine].Index? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var position = DeviceDirectory.home(hash, mask: mask)
        while let slot = slots[position], slot.generation == generation {
            if slot.hash == UInt32(truncatingIfNeeded: hash), slot.given == given { return slot.index }
            position = (position + 1) & mask
        }
        return nil
    }

    /// Asks the processor to bring into its caches the slot where the name whose ``hash(_:)`` is
    /// `hash` is looked for first.
    func prefetchSlot(hash: UInt64) {
        guard !slots.isEmpty else { return }
        let position = DeviceDirectory.home(hash, mask: slots.count - 1)
        slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress { cprefetch_read(base + position) }
        }
    }

    /// Keeps the position of the device records name `given` (not kept yet in this generation).
    mutating func keep(_ index: [String: DeviceEngine].Index, given: String, hash: UInt64) {
        // At most three quarters full, so that a probe for a name not kept ends soon.
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let slot = Slot(
            generation: generation, hash: UInt32(truncatingIfNeeded: hash), given: given, index: index)
        insert(slot, hash: hash)
    }

    /// Forgets every position (the dictionary changed), keeping the room.
    mutating func forgetAll() {
        count = 0
        if generation == .max {
            // Once in four billion additions: the old generations' slots are cleared for real.
            slots = [Slot?](repeating: nil, count: slots.count)
            generation = 1
        } else {
            generation += 1
        }
    }

    /// A name's first slot. FNV-1a spreads a change in a name's last byte over few bits (its
    /// prime multiplies by 2^40 and by 0x1b3), so names that count up (`d00001`, `d00002`) cluster
    /// in any one range of bits; its bits are mixed first (the last step of MurmurHash3's 64-bit
    /// hash) so that every bit of the name moves the slot.
    private static func home(_ hash: UInt64, mask: Int) -> Int {
        var mixed = hash ^ (hash >> 33)
        mixed &*= 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        return Int(truncatingIfNeeded: mixed) & mask
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot?](repeating: nil, count: max(16, old.count * 2))
        count = 0
        for case let slot? in old where slot.generation == generation {
            insert(slot, hash: DeviceDirectory.hash(slot.given))
        }
    }

    private mutating func insert(_ slot: Slot, hash: UInt64) {
        let mask = slots.count - 1
        var position = DeviceDirectory.home(hash, mask: mask)
        while let used = slots[position], used.generation == generation {
            position = (position + 1) & mask
        }
        slots[position] = slot
        count += 1
    }
}
