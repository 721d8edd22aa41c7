-- Hand-written miniature of an Nsight Systems 2022 SQLite export (schema 2.9-like):
-- kernel table with mangledName, EXPORT_META_DATA with a non-UTF-8 (Latin-1) value,
-- a kernel name that is not valid UTF-8, runtime names with version suffixes,
-- copies of kinds HtoD (1), DtoH (2), DtoD (8), PtoP (10) and one memset. Times in ns.
-- Expected numbers are worked out in tests/test_import_nsys.py.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
    isDiscrete INTEGER, l2CacheSize INTEGER, smCount INTEGER, cuDevice INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER,
    cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
    gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
    staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
    callchainId INTEGER);

INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES (2, 'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES (9, 'cudaMemsetAsync_v3020');
INSERT INTO StringIds VALUES (3, 'void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)');
INSERT INTO StringIds VALUES (4, 'implicit_convolve_sgemm');
INSERT INTO StringIds VALUES (5, '_Z23implicit_convolve_sgemmIffLi1024ELi5ELi5ELi3ELi3ELi3ELi1ELb0ELb0ELb1EEviiiPKT_iPS0_PKS_18kernel_conv_paramsyiffiS4_S4_bii');
INSERT INTO StringIds VALUES (6, 'maxwell_scudnn_winograd_128x128_ldg1_ldg4_mobile_relu_tile148t_nt_v0');
INSERT INTO StringIds VALUES (7, 'maxwell_scudnn_winograd_128x128_ldg1_ldg4_mobile_relu_tile148t_nt_v0');
INSERT INTO StringIds VALUES (8, 'maxwell_scudnn_winograd_128x128_ldg1_ldg4_mobile_relu_tile148t_nt_v0');
-- 'my_kern' 0xE9 'l': Latin-1, not UTF-8
INSERT INTO StringIds VALUES (10, CAST(X'6D795F6B65726EE96C' AS TEXT));

INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_PRODUCT_VERSION', '2022.1.1.61');
INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_USER', CAST(X'416C6578616E6465722047656915' AS TEXT));

INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'NVIDIA GeForce GTX 970', '0000:01:00.0', 1, 1835008, 13, 0);
INSERT INTO TARGET_INFO_GPU VALUES (1, 1, 'Intel(R) UHD Graphics 630', '', 1, 0, 0, 0);

-- kernels: start, end, device, context, stream, correlation, pid, demangled, short, mangled,
--          launchType, cacheConfig, registers, grid xyz, block xyz, static smem, dynamic smem
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ( 2000,  4000, 0, 1, 7, 11, 1, 3, 4, 5, 0, 0, 32, 13, 1, 1, 1024, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10000, 12500, 0, 1, 7, 12, 1, 3, 4, 5, 0, 0, 32, 13, 1, 1, 1024, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ( 3000,  4500, 0, 1, 8, 13, 1, 6, 7, 8, 0, 0, 64, 26, 1, 1, 256, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (13000, 14000, 0, 1, 8, 14, 1, 6, 7, 8, 0, 0, 64, 52, 1, 1, 256, 1, 1, 0, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (14100, 14200, 0, 1, 8, 15, 1, 10, 10, 10, 0, 0, 16, 1, 1, 1, 32, 1, 1, 0, 0);

-- copies: start, end, device, context, stream, correlation, pid, bytes, copyKind, srcKind, dstKind
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ( 1000,  1800, 0, 1, 7, 21, 1, 1000000, 1, 0, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ( 5000,  5400, 0, 1, 7, 22, 1,  500000, 1, 1, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (15000, 15200, 0, 1, 7, 23, 1,      64, 2, 2, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES ( 4200,  4400, 0, 1, 9, 24, 1,    2048, 8, 2, 2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (16000, 16100, 0, 1, 7, 25, 1,    4096, 10, 2, 2);

INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (4600, 4700, 0, 1, 7, 31, 1, 0, 4096, 2);

-- runtime: start, end, eventClass, tid, correlation, nameId, return value, callchain
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (  500,   700, 0, 1, 21, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 4800,  4900, 0, 1, 22, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (14900, 15000, 0, 1, 23, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 4000,  4050, 0, 1, 24, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (15900, 16000, 0, 1, 25, 2, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (  900,   950, 0, 1, 11, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 2400,  2450, 0, 1, 13, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 9900,  9950, 0, 1, 12, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (12900, 12950, 0, 1, 14, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (14000, 14050, 0, 1, 15, 1, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 4400,  4450, 0, 1, 31, 9, 0, NULL);
