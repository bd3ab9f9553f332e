fn main() {
    std::process::exit(rocm_doctor::app::main());
}
