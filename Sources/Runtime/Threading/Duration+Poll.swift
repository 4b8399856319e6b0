extension Duration {
    /// This duration as the timeout `poll()` takes: whole milliseconds rounded up, so a wait
    /// never ends before its deadline and spins; 0 when nothing is left; clamped to `Int32`.
    public var pollTimeoutMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, overflowAgain) = whole.addingReportingOverflow((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return overflow || overflowAgain ? Int32.max : Int32(clamping: total)
    }
}
