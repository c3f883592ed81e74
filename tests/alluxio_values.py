"""Alluxio property names and values with what Alluxio 2.9.3 makes of them, shared by two tests:
tests/unit/plugins/test_alluxio_properties.py checks that module_utils/alluxio/properties.py reads
each so, tests/render/test_alluxio_property_table.py that Alluxio itself does (its jars, through
tools/alluxio/property_table.sh --probe). A case both pass is a rule of Alluxio's, not ours."""

# Alluxio fails where it reads the value; a BOOLEAN's: Alluxio reads it as false without a word.
REFUSED = "refused"

SIZE = "alluxio.user.client.cache.page.size"  # DATASIZE
DURATION = "alluxio.user.metadata.cache.expiration.time"  # DURATION
INTEGER = "alluxio.user.metadata.cache.max.size"  # INTEGER
LONG = "alluxio.job.master.job.capacity"  # LONG
DOUBLE = "alluxio.master.metastore.inode.cache.high.water.mark.ratio"  # DOUBLE
BOOLEAN = "alluxio.web.ui.enabled"  # BOOLEAN
METASTORE = "alluxio.master.metastore"  # ENUM MetastoreType: HEAP, ROCKS
ROCKS_INDEX = "alluxio.master.metastore.rocks.inode.index"  # ENUM IndexType: kBinarySearch, kHashSearch, ...
STORE_TYPE = "alluxio.user.client.cache.store.type"  # ENUM PageStoreType: LOCAL, ROCKS, MEM

MB = 2 ** 20

# (name, value as the inventory gives it, what Alluxio reads: bytes, ms, a number, a bool, an enum
# constant's name, or REFUSED). "old" marks a value the hand-written regexes before the generated
# table judged the other way.
VALUES = [
    # FormatUtils.parseSpaceSize: Double.parseDouble before the unit, a unit after the last digit.
    (SIZE, "16MB", 16 * MB),
    (SIZE, "2000MB", 2000 * MB),
    (SIZE, "1.5GB", 1536 * MB),
    (SIZE, "1024", 1024),
    (SIZE, "64b", 64),
    (SIZE, "16mb", 16 * MB),
    (SIZE, "16M", 16 * MB),
    (SIZE, "16MiB", 16 * MB),  # old: refused
    (SIZE, "16Mi", 16 * MB),  # old: refused
    (SIZE, "1KiB", 1024),  # old: refused
    (SIZE, "1e3KB", 1024000),  # old: refused
    (SIZE, "0x1p4MB", 16 * MB),  # a hexadecimal double; old: refused
    (SIZE, "1PB", 2 ** 50),
    (SIZE, "0.1PB", 112589990684262),  # through BigDecimal
    (SIZE, "1.5", 1),
    (SIZE, "-1MB", -MB + 1),  # minus a million plus 0.0001, cast toward zero
    (SIZE, "1e999", 2 ** 63 - 1),  # Infinity, cast to long
    (SIZE, " 16MB ", 16 * MB),  # trimmed
    (SIZE, 16777216, 16 * MB),
    (SIZE, "16 MB", REFUSED),  # the unit is " MB"; old: accepted
    (SIZE, "1.5 G", REFUSED),  # old: accepted
    (SIZE, "16MBs", REFUSED),
    (SIZE, "16E", REFUSED),
    (SIZE, "MB", REFUSED),
    (SIZE, "16_000", REFUSED),  # Python's float() takes it, Java's parseDouble does not
    (SIZE, "1,5GB", REFUSED),
    (SIZE, "Infinity", REFUSED),
    (SIZE, "two megs", REFUSED),
    # FormatUtils.parseTimeSize: ([-]?[0-9]*)([a-zA-Z]*), then the unit in any case.
    (DURATION, "2day", 2 * 86400000),
    (DURATION, "365d", 365 * 86400000),
    (DURATION, "10min", 600000),
    (DURATION, "10M", 600000),  # minutes
    (DURATION, "500", 500),
    (DURATION, "500ms", 500),
    (DURATION, "1millisecond", 1),
    (DURATION, "30sec", 30000),
    (DURATION, "1second", 1000),
    (DURATION, "2hr", 7200000),
    (DURATION, "3HOUR", 10800000),
    (DURATION, "-1", -1),
    (DURATION, 60, 60),
    (DURATION, "2days", REFUSED),  # no plurals; old: accepted
    (DURATION, "10mins", REFUSED),  # old: accepted
    (DURATION, "10 min", REFUSED),  # old: accepted
    (DURATION, "1.5h", REFUSED),
    (DURATION, "1w", REFUSED),
    (DURATION, "ms", REFUSED),
    (DURATION, "-", REFUSED),
    (DURATION, "P1D", REFUSED),
    (DURATION, "forever", REFUSED),
    # Integer.parseInt / Long.parseLong.
    (INTEGER, "1000000", 1000000),
    (INTEGER, 1000000, 1000000),
    (INTEGER, "-1", -1),  # old: refused
    (INTEGER, "+5", 5),  # old: refused
    (INTEGER, "2147483647", 2147483647),
    (INTEGER, "\u0663", 3),  # ARABIC-INDIC DIGIT THREE: Character.digit reads it
    (INTEGER, "2147483648", REFUSED),  # old: accepted
    (INTEGER, "1e6", REFUSED),
    (INTEGER, "1_000", REFUSED),
    (INTEGER, "0x10", REFUSED),
    (INTEGER, "1.0", REFUSED),
    (INTEGER, "", REFUSED),
    (LONG, "2147483648", 2147483648),
    (LONG, "-9223372036854775808", -(2 ** 63)),
    (LONG, "9223372036854775808", REFUSED),
    # Double.parseDouble.
    (DOUBLE, "0.85", 0.85),
    (DOUBLE, 0.85, 0.85),
    (DOUBLE, ".5", 0.5),
    (DOUBLE, "1e-3", 0.001),
    (DOUBLE, "1", 1.0),
    (DOUBLE, "0.5f", 0.5),
    (DOUBLE, "0x1p-1", 0.5),
    (DOUBLE, "85%", REFUSED),
    (DOUBLE, "0,85", REFUSED),
    (DOUBLE, "1_0", REFUSED),
    (DOUBLE, "inf", REFUSED),
    # Boolean.parseBoolean: "true" in any case is true, anything else false.
    (BOOLEAN, "true", True),
    (BOOLEAN, "false", False),
    (BOOLEAN, "TRUE", True),
    (BOOLEAN, "False", False),
    (BOOLEAN, True, True),
    (BOOLEAN, False, False),
    (BOOLEAN, "yes", REFUSED),
    (BOOLEAN, "1", REFUSED),
    (BOOLEAN, "on", REFUSED),
    (BOOLEAN, "", REFUSED),
    # Enum.valueOf with the value, then with it upper-cased.
    (METASTORE, "ROCKS", "ROCKS"),
    (METASTORE, "rocks", "ROCKS"),  # old: refused
    (METASTORE, "Heap", "HEAP"),
    (METASTORE, "rocksdb", REFUSED),
    (ROCKS_INDEX, "kHashSearch", "kHashSearch"),
    (ROCKS_INDEX, "KHASHSEARCH", REFUSED),  # upper-cased, it is no constant's name
    (STORE_TYPE, "MEM", "MEM"),
    (STORE_TYPE, "mem", "MEM"),
    (STORE_TYPE, "MEMORY", REFUSED),
    # Names of templates, typed by them.
    ("alluxio.worker.tieredstore.level5.watermark.high.ratio", "0.9", 0.9),
    ("alluxio.worker.tieredstore.level5.watermark.high.ratio", "90%", REFUSED),
    ("alluxio.user.network.custom.keepalive.time", "30sec", 30000),
    ("alluxio.proxy.rpc.executor.type", "fjp", "FJP"),
    ("alluxio.master.mount.table.root.option.alluxio.underfs.s3.inherit.acl", "false", False),
    ("alluxio.master.mount.table.root.option.alluxio.underfs.s3.inherit.acl", "maybe", REFUSED),
    ("alluxio.master.mount.table.root.option.alluxio.user.file.readtype.default", "CACHE", REFUSED),
]

# (name, its type as PropertyKey.fromString gives it, None when PropertyKey.isValid is false)
NAMES = [
    ("alluxio.web.ui.enabled", "BOOLEAN"),
    (" alluxio.web.ui.enabled ", "BOOLEAN"),  # AlluxioProperties.merge trims names too
    ("ALLUXIO.WEB.UI.ENABLED", None),
    ("alluxio.user.file.metadata.sync.intervall", None),
    ("alluxio.user.file.readtype.default", "ENUM:alluxio.client.ReadType"),
    ("alluxio.network.host.resolution.timeout.ms", "DURATION"),  # an alias
    ("fs.oss.accessKeyId", "STRING"),
    ("alluxio.worker.tieredstore.level0.alias", "STRING"),  # a key
    ("alluxio.worker.tieredstore.level5.alias", "STRING"),  # the template
    ("alluxio.worker.tieredstore.level12.dirs.quota", "LIST"),
    ("alluxio.worker.tieredstore.levelX.alias", None),
    ("alluxio.worker.tieredstore.level\u0663.alias", None),  # Java's \d is ASCII
    ("alluxio.locality.rack", "STRING"),  # a key
    ("alluxio.locality.zone", "STRING"),  # the template
    ("alluxio.master.security.impersonation.a-b.c@d.groups", "STRING"),
    ("alluxio.master.nameservices.ns-1.x", "STRING"),
    ("alluxio.master.mount.table.root.option.alluxio.underfs.s3.inherit.acl", "BOOLEAN"),  # nested key
    ("alluxio.master.mount.table.root.option.aws.accessKeyId", "STRING"),  # nested alias
    # an ENUM without its enum class: Alluxio fails on any value
    ("alluxio.master.mount.table.root.option.alluxio.user.file.readtype.default", "ENUM"),
    ("alluxio.master.mount.table.root.option.not.a.key", "STRING"),  # nested, no key: STRING
    ("alluxio.master.mount.table.root.option.", None),
    ("alluxio.master.journal.ufs.option.alluxio.underfs.s3.inherit.acl", "BOOLEAN"),
    ("alluxio.user.network.rpc.netty.channel", "ENUM:alluxio.network.ChannelType"),
    ("alluxio.master.rpc.executor.keepalive", "DURATION"),  # a key
    ("alluxio.proxy.rpc.executor.keep.alive", "DURATION"),  # RPC_EXECUTOR_KEEPALIVE's pattern ...
    ("alluxio.proxy.rpc.executor.keepalive", None),  # ... is not its format
]

# (name, value with a ${...} reference, what Alluxio reads when nothing else is set): the check
# leaves these values alone.
REFERENCES = [
    ("alluxio.user.block.size.bytes.default", "${alluxio.user.client.cache.page.size}", MB),
    ("alluxio.user.block.size.bytes.default", "${ alluxio.user.client.cache.page.size }", MB),
    # Alluxio cannot resolve it: the chart's shell does first (ALLUXIO_JAVA_OPTS).
    ("alluxio.worker.hostname", "${ALLUXIO_WORKER_HOSTNAME}", REFUSED),
]
