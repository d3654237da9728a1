//! Java figures on this machine (WORKLOADS.md companion `java-1.8.2-here.md`): Avro Java 1.8.2's
//! Perf tool, OpenJDK 17, COUNT 250000, CYCLES 800, M entries/s from the median time over clean
//! runs on a 2-core
//! machine of this kind. Printed beside our rows; compare ratios, since a single figure moves by
//! about +-25% from run to run.
//!
//! Caveats carried over from that file: up to 1.8.2 encoder/decoder construction is inside Java's
//! timed region; FloatRead, DoubleRead and BooleanRead discard their results, so the JIT removes
//! much of their work; FooBar there uses the 1.7.5-1.8.2 data order (872990 bytes/cycle).

/// One row of the Java table.
#[derive(Debug, Clone, Copy)]
pub struct JavaFigure {
    /// Row name (`IntRead`).
    pub row: &'static str,
    /// Median milliseconds for 800 cycles.
    pub median_ms: u32,
    /// Millions of entries per second (from the median), as Java printed it.
    pub m_entries_per_sec: f64,
    /// Bytes per cycle of Java's data.
    pub bytes_per_cycle: u64,
}

impl JavaFigure {
    /// Seconds per cycle: the median time over Java's 800 cycles. Exact where the entries
    /// column rounds to 0.000 (ReflectFloat and ReflectDouble have one entry per cycle).
    pub fn seconds_per_cycle(&self) -> f64 {
        f64::from(self.median_ms) / 800.0 / 1000.0
    }
}

/// The figure for a row, if Java has one.
pub fn figure(row: &str) -> Option<&'static JavaFigure> {
    FIGURES.iter().find(|f| f.row == row)
}

const fn f(
    row: &'static str,
    median_ms: u32,
    m_entries_per_sec: f64,
    bytes_per_cycle: u64,
) -> JavaFigure {
    JavaFigure {
        row,
        median_ms,
        m_entries_per_sec,
        bytes_per_cycle,
    }
}

/// Every row of the Java table.
pub static FIGURES: &[JavaFigure] = &[
    f("IntRead", 461, 433.839, 629325),
    f("IntWrite", 660, 303.030, 629325),
    f("SmallLongRead", 454, 440.529, 629325),
    f("SmallLongWrite", 1026, 194.837, 629325),
    f("LongRead", 1193, 167.645, 1092353),
    f("LongWrite", 1890, 105.820, 1092353),
    f("FloatRead", 175, 1142.857, 1000000),
    f("FloatWrite", 925, 216.216, 1000000),
    f("DoubleRead", 174, 1149.425, 2000000),
    f("DoubleWrite", 1032, 193.705, 2000000),
    f("BooleanRead", 48, 4166.667, 250000),
    f("BooleanWrite", 512, 391.007, 250000),
    f("BytesRead", 388, 103.093, 1776937),
    f("BytesWrite", 674, 59.303, 1776937),
    f("StringRead", 1146, 34.919, 1780910),
    f("StringWrite", 1436, 27.855, 1780910),
    f("ArrayRead", 226, 884.956, 1000006),
    f("ArrayWrite", 825, 242.424, 1000006),
    f("MapRead", 520, 384.246, 1250004),
    f("MapWrite", 1406, 142.298, 1250004),
    f("RecordRead", 990, 33.669, 1617069),
    f("RecordWrite", 1071, 31.123, 1617069),
    f("ValidatingRecordRead", 1639, 20.337, 1617069),
    f("ValidatingRecordWrite", 1929, 17.280, 1617069),
    f("ResolvingRecordRead", 1790, 18.622, 1617069),
    f("RecordWithDefaultRead", 4324, 7.710, 1617069),
    f("RecordWithOutOfOrderRead", 1662, 20.062, 1617069),
    f("RecordWithPromotionRead", 1912, 17.429, 1617069),
    f("GenericRead", 2228, 7.482, 808498),
    f("GenericWrite", 1315, 12.674, 808498),
    f("GenericStringsRead", 2388, 6.979, 2220873),
    f("GenericStringsWrite", 3277, 5.086, 2220873),
    f("GenericNested_Read", 2787, 5.980, 808498),
    f("GenericNested_Write", 2090, 7.976, 808498),
    f("GenericNestedFake_Read", 982, 16.963, 808498),
    f("GenericNestedFake_Write", 734, 22.722, 808498),
    f("GenericWithDefault_Read", 3646, 4.571, 808498),
    f("GenericWithOutOfOrder_Read", 2458, 6.780, 808498),
    f("GenericWithPromotion_Read", 2506, 6.651, 808498),
    f("GenericOneTimeDecoderUse_Read", 2087, 7.986, 808498),
    f("GenericOneTimeReaderUse_Read", 2875, 5.797, 808498),
    f("GenericOneTimeUse_Read", 2708, 6.155, 808498),
    f("FooBarSpecificRecordTestRead", 2496, 1.669, 872990),
    f("FooBarSpecificRecordTestWrite", 1419, 2.936, 872990),
    f("ReflectRecordRead", 2567, 6.493, 808498),
    f("ReflectRecordWrite", 1986, 8.392, 808498),
    f("ReflectBigRecordRead", 2560, 3.907, 767380),
    f("ReflectBigRecordWrite", 2156, 4.637, 767380),
    f("ReflectFloatRead", 3588, 0.000, 1000004),
    f("ReflectFloatWrite", 1094, 0.001, 1000004),
    f("ReflectDoubleRead", 3985, 0.000, 2000004),
    f("ReflectDoubleWrite", 1045, 0.001, 2000004),
    f("ReflectIntArrayRead", 4098, 4.067, 859709),
    f("ReflectIntArrayWrite", 1394, 11.956, 859709),
    f("ReflectLongArrayRead", 2558, 3.257, 805344),
    f("ReflectLongArrayWrite", 1160, 7.187, 805344),
    f("ReflectDoubleArrayRead", 2416, 4.139, 818144),
    f("ReflectDoubleArrayWrite", 892, 11.217, 818144),
    f("ReflectFloatArrayRead", 4850, 4.124, 846172),
    f("ReflectFloatArrayWrite", 1857, 10.770, 846172),
    f("ReflectNestedFloatArrayRead", 6136, 3.259, 846172),
    f("ReflectNestedFloatArrayWrite", 3284, 6.091, 846172),
    f("ReflectNestedObjectArrayRead", 4500, 0.889, 645104),
    f("ReflectNestedObjectArrayWrite", 3066, 1.305, 645104),
    f("ReflectNestedLargeFloatArrayRead", 4373, 0.762, 1087381),
    f("ReflectNestedLargeFloatArrayWrite", 1611, 2.069, 1087381),
    f(
        "ReflectNestedLargeFloatArrayBlockedRead",
        4449,
        0.749,
        1101357,
    ),
    f(
        "ReflectNestedLargeFloatArrayBlockedWrite",
        1639,
        2.033,
        1101357,
    ),
];
