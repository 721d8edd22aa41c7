-- Hand-written miniature of an older (about 2021) Nsight Systems SQLite export: no mangledName
-- column, no EXPORT_META_DATA, device names in TARGET_INFO_CUDA_GPU, runtime calls recorded
-- twice (outer record without and nested record with the _vNNNN suffix), kernels on two
-- devices, no copy or set tables. Times in ns; expected numbers in tests/test_import_nsys.py.
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, deviceId INTEGER NOT NULL, name TEXT, busLocation TEXT,
    isDiscrete INTEGER);
CREATE TABLE TARGET_INFO_CUDA_GPU (vmId INTEGER NOT NULL, name TEXT NOT NULL, pciBusId TEXT,
    numMultiprocessors INTEGER NOT NULL, deviceId INTEGER, pid INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
    contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
    demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, launchType INTEGER, cacheConfig INTEGER,
    registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
    blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
    globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL,
    callchainId INTEGER);

INSERT INTO StringIds VALUES (1, 'vector_add(double const*, double const*, unsigned long, double*)');
INSERT INTO StringIds VALUES (2, 'vector_add');
INSERT INTO StringIds VALUES (3, 'cudaMalloc');
INSERT INTO StringIds VALUES (4, 'cudaMalloc_v3020');
INSERT INTO StringIds VALUES (5, 'cudaLaunchKernel');
INSERT INTO StringIds VALUES (6, 'cudaLaunchKernel_v7000');

INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'A100-PCIE-40GB', '0000:99:00.0', 1);
INSERT INTO TARGET_INFO_GPU VALUES (1, 1, 'A100-SXM4-80GB', '0000:AD:00.0', 1);
INSERT INTO TARGET_INFO_CUDA_GPU VALUES (1, 'A100-PCIE-40GB', '<UNKNOWN_BUS_ID>', 108, 0, 7);
INSERT INTO TARGET_INFO_CUDA_GPU VALUES (1, 'A100-SXM4-80GB', '<UNKNOWN_BUS_ID>', 108, 1, 7);

INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (100, 200, 0, 10, 16, 1, 7, 1, 2, 0, 0, 16, 1, 1, 1, 10, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (300, 400, 0, 10, 16, 2, 7, 1, 2, 0, 0, 16, 1, 1, 1, 10, 1, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (150, 450, 1, 11, 17, 3, 7, 1, 2, 0, 0, 16, 1, 1, 1, 10, 1, 1);

INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 0, 50, 0, 7, 1, 3, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES ( 5, 45, 0, 7, 1, 4, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (60, 70, 0, 7, 2, 5, 0, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (61, 69, 0, 7, 2, 6, 0, NULL);
