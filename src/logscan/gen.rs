//! `rocm-doctor gen-log` (hidden): writes a deterministic synthetic AMD_LOG_LEVEL=5 log shaped
//! like seed 003 (a GEMM loop over 8 devices, ROCm 7.2 format, interleaved threads) for the
//! benchmark `scripts/bench-log.sh`. The line formats are those of docs/log.md (ROCm 7.x rows:
//! `[pid:N tid: 0xHEX]`, launch sequence of ROCm/ROCm#5952).

use std::io::{self, Write};

const PID: u32 = 309675;
const GEMM: &str = concat!(
    "Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_",
    "AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_",
    "IU1_K1_LBSPPA1024_LBSPPB1024_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV1_MIWT8_8_MO40_",
    "NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_",
    "SRVW0_SSO0_SVW8_SK3_SKFTR0_SKXCCM8_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA8_VWB8_",
    "WSGRA0_WSGRB0_WS64_WG32_8_1",
);
const ELEMENTWISE: &str = "void at::native::vectorized_elementwise_kernel<4, \
    at::native::bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)::\
    {lambda(c10::BFloat16)#1}, \
    std::array<char*, 2ul> >(int, \
    at::native::bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)::\
    {lambda(c10::BFloat16)#1}, \
    std::array<char*, 2ul>)";

struct G<W: Write> {
    w: W,
    ts: u64,
}

impl<W: Write> G<W> {
    fn line(&mut self, lvl: u8, file: &str, no: u32, tid: u64, msg: &str) -> io::Result<()> {
        self.ts += 3;
        writeln!(
            self.w,
            ":{lvl}:{file:<25}:{no:<4}: {:010} us: [pid:{PID} tid: {tid:#x}] {msg}",
            self.ts
        )
    }

    fn launch(&mut self, tid: u64, dev: u64, it: u64, name: &str) -> io::Result<()> {
        let q = 0x73e2ec01cb20 + dev * 0x1000;
        self.line(
            3,
            "hip_module.cpp",
            825,
            tid,
            &format!(
                "\x1b[32m hipLaunchKernel ( 0x73e528bd75e0, {{7,1,1}}, {{256,1,1}}, \
                 0x73e303ffc530, 0, stream:{q:#x} ) \x1b[0m"
            ),
        )?;
        self.line(
            5,
            "command.cpp",
            354,
            tid,
            &format!(
                "Command (KernelExecution) enqueued: {:#x} to queue: {q:#x}",
                0x73e2213ee450 + it
            ),
        )?;
        self.line(
            4,
            "rocvirtual.cpp",
            990,
            tid,
            "Arg0:   = val:0x3600 (size:0x4)",
        )?;
        self.line(
            3,
            "rocvirtual.cpp",
            3668,
            tid,
            &format!("ShaderName : {name}"),
        )?;
        self.line(
            5,
            "rocvirtual.cpp",
            3867,
            tid,
            "KernargSegmentByteSize = 24 KernargSegmentAlignment = 128",
        )?;
        self.line(
            5,
            "rocvirtual.cpp",
            1208,
            tid,
            &format!(
                "SWq={q:#x}, HWq={:#x}, id=1, Dispatch Header = 0x1502 (type=2, barrier=1, \
                 acquire=2, release=2), setup=3, grid=[1792, 1, 1], workgroup=[256, 1, 1], \
                 private_seg_size=0, group_seg_size=0, kernel_obj=0x73e18aa72f80, \
                 kernarg_address=0x73e2a4a01580, completion_signal=0x0, correlation_id=0, \
                 rptr={it}, wptr={it}",
                0x73e2c8300000 + dev * 0x100000
            ),
        )?;
        self.line(
            3,
            "hip_module.cpp",
            827,
            tid,
            "hipLaunchKernel: Returned hipSuccess : : duration: 40 us",
        )
    }
}

/// Writes `iterations` GEMM iterations over `devices` devices.
pub(crate) fn write(w: impl Write, iterations: u64, devices: u64) -> io::Result<()> {
    let devices = devices.max(1);
    let mut g = G {
        w: io::BufWriter::with_capacity(1 << 20, w),
        ts: 38_362_000_000,
    };
    let main = 0x73e303fff6c0u64;
    start_up(&mut g, main, devices)?;
    for it in 0..iterations {
        iteration(&mut g, main, devices, it)?;
    }
    g.w.flush()
}

/// The runtime's start: the agents enumerated, the HIP version, a queue per device.
fn start_up<W: Write>(g: &mut G<W>, main: u64, devices: u64) -> io::Result<()> {
    g.line(
        3,
        "rocdevice.cpp",
        415,
        main,
        &format!("Initalizing runtime stack, Enumerated GPU agents = {devices}"),
    )?;
    for d in 0..devices {
        g.line(
            3,
            "rocdevice.cpp",
            1810,
            main,
            "Gfx Major/Minor/Stepping: 9/4/2",
        )?;
        g.line(
            3,
            "rocdevice.cpp",
            1811,
            main,
            "HMM support: 1, XNACK: 0, Direct host access: 0",
        )?;
        let _ = d;
    }
    g.line(
        3,
        "hip_context.cpp",
        71,
        main,
        "HIP Version: 7.2.26015.fc0010cf6a, Direct Dispatch: 1",
    )?;
    for d in 0..devices {
        g.line(
            3,
            "rocdevice.cpp",
            3106,
            main,
            &format!(
                "Created SWq={:#x} to map on HWq={:#x} with size 16384 with priority 1, \
                 cooperative: 0",
                0x73e2ec01cb20 + d * 0x1000,
                0x73e2c8300000 + d * 0x100000
            ),
        )?;
    }
    Ok(())
}

/// One GEMM iteration on device `it % devices`: launches, a copy, more launches.
fn iteration<W: Write>(g: &mut G<W>, main: u64, devices: u64, it: u64) -> io::Result<()> {
    let dev = it % devices;
    // Two threads interleave: the launcher of this device and the one of the next.
    let t1 = main + dev * 0x10000;
    let t2 = main + ((dev + 1) % devices) * 0x10000;
    g.launch(t1, dev, it, GEMM)?;
    g.launch(t2, dev, it, ELEMENTWISE)?;
    g.line(
        3,
        "hip_memory.cpp",
        1617,
        t1,
        "\x1b[32m hipMemcpyAsync ( 0x73e2a4a01580, 0x7ffc16ba1708, 4096, \
         hipMemcpyHostToDevice, stream:0x73e2ec01cb20 ) \x1b[0m",
    )?;
    g.line(
        5,
        "command.cpp",
        354,
        t1,
        "Command (CopyHostToDevice) enqueued: 0x73e2213ee450 to queue: 0x73e2ec01cb20",
    )?;
    g.line(
        3,
        "hip_memory.cpp",
        1619,
        t1,
        "hipMemcpyAsync: Returned hipSuccess : : duration: 529 us",
    )?;
    g.launch(t1, dev, it, GEMM)?;
    g.launch(t2, dev, it, ELEMENTWISE)?;
    g.launch(t1, dev, it, GEMM)?;
    g.launch(t2, dev, it, ELEMENTWISE)?;
    g.launch(t1, dev, it, GEMM)?;
    Ok(())
}
